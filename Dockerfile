# bufsize service: a small non-root image running `bufsize serve` with SQLite in /data.
FROM python:3.11.7-slim-bookworm AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY pyproject.toml README.md constraints.txt ./
COPY app ./app
COPY models ./models
COPY validation ./validation
RUN python -m venv /opt/bufsize \
    && /opt/bufsize/bin/pip install --no-cache-dir pip==25.3 \
    && /opt/bufsize/bin/pip install --no-cache-dir -c constraints.txt .

FROM python:3.11.7-slim-bookworm
RUN useradd --create-home --uid 10001 bufsize \
    && mkdir /data \
    && chown bufsize /data
COPY --from=build /opt/bufsize /opt/bufsize
# README, "Exposing bufsize": the container listens on all its interfaces, but answers only the
# allowed hosts (publish it as -p 127.0.0.1:8000:8000, or set BUFSIZE_ALLOWED_HOSTS to the name a
# reverse proxy serves, and BUFSIZE_API_KEYS to require keys).
ENV PATH=/opt/bufsize/bin:$PATH \
    BUFSIZE_DATABASE_URL=sqlite:////data/bufsize.sqlite3 \
    BUFSIZE_ALLOWED_HOSTS=127.0.0.1,localhost \
    NUMBA_CACHE_DIR=/home/bufsize/numba-cache
USER 10001
WORKDIR /home/bufsize
# The simulator's compiled core, built into the image (numba's on-disk cache) so that the first
# check after a start loads it instead of compiling for minutes; a host with another CPU model
# recompiles once, into the same writable directory.
RUN python -m validation.simulator.warm
VOLUME ["/data"]
EXPOSE 8000
# Readiness: the database takes a write, /tmp takes a file, the job pool runs.
HEALTHCHECK --interval=30s --timeout=3s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"]
CMD ["bufsize", "serve", "--host", "0.0.0.0", "--port", "8000"]
