# slack-questions as a container: `python -m bot` on port 3000, as an unprivileged user.
# Credentials come from the environment at run time (docker run -e / --env-file), never
# from the image. See README.md, "Run it in a container".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY provider ./provider
COPY bot ./bot
COPY slack_emulator ./slack_emulator
# With the PostgreSQL driver: several replicas share one database (compose.yaml).
RUN pip install '.[postgres]' && rm -rf /app/provider /app/bot /app/slack_emulator

# The store lives in a volume the unprivileged user owns.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin questions \
    && mkdir -p /data && chown questions:questions /data
USER questions
WORKDIR /data
VOLUME ["/data"]

# Inside a container the service must listen beyond loopback to be reachable at all.
# Offline mode (no credentials) ignores HOST and stays on loopback: its playground acts as
# anyone. To open the playground from the host, opt in at run time and publish its port:
#   docker run -it -p 127.0.0.1:8080:8080 -e SLACK_QUESTIONS_PLAYGROUND=0.0.0.0:8080 slack-questions
ENV HOST=0.0.0.0 \
    PORT=3000 \
    SLACK_QUESTIONS_DB=/data/slack-questions.db
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '3000') + '/healthz', timeout=2)"]

ENTRYPOINT ["python", "-m", "bot"]
