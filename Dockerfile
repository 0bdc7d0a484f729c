FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY deputy deputy
COPY bot bot
COPY agent agent
COPY sentinel sentinel
COPY connectors connectors
COPY workers workers
COPY emulator emulator
COPY sandbox sandbox
COPY vault vault
COPY bench bench
RUN pip install --no-cache-dir . && useradd --create-home deputy && mkdir /data && chown deputy /data
USER deputy
ENV DEPUTY_DATA_DIR=/data
CMD ["deputy", "--help"]
