# Atout server image. Configure it with ATOUT_* environment variables (see README.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN groupadd --system --gid 1000 atout \
 && useradd --system --uid 1000 --gid atout --home-dir /app --shell /usr/sbin/nologin atout

WORKDIR /app

# The app finds templates/, static/ and migrations/ beside app/, so the whole tree is copied and
# installed in editable mode.
COPY pyproject.toml setup.py README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
# The exact solver's C search (app/bots/_dds.c) needs a compiler to build; it is removed in the
# same layer once the extension is built beside its source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && pip install -e . \
 && python -c "import app.bots._dds" \
 && apt-get purge -y --auto-remove gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/* /app/build \
 && mkdir -p /app/data \
 && chown atout:atout /app/data

USER atout

# Default database: SQLite in /app/data (mount a volume there); docker-compose.yml uses PostgreSQL.
VOLUME ["/app/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4); sys.exit(0 if r.status == 200 else 1)"]

CMD ["sh", "-c", "alembic upgrade head && exec atout serve --host 0.0.0.0"]
