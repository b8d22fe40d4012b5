# Parley: built with the same install script and build command as the Makefile, run on a slim Debian 12.
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN ./scripts/install-deps.sh
COPY . .
RUN swift build -c release --static-swift-stdlib --product parley && cp .build/release/parley /usr/local/bin/parley

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libsqlite3-0 libcmark-gfm0.29.0.gfm.6 libcmark-gfm-extensions0.29.0.gfm.6 libvips42 \
      libcurl4 libxml2 tzdata ca-certificates curl libjs-katex poppler-utils unzip \
    && rm -rf /var/lib/apt/lists/* && useradd --system --home /data parley && mkdir -p /data && chown parley /data
COPY --from=build /usr/local/bin/parley /usr/local/bin/parley
COPY Templates /app/Templates
COPY Public /app/Public
WORKDIR /app
USER parley
VOLUME /data
# Replies get 8 s to finish on `docker stop`, inside Docker's default 10 s before SIGKILL.
ENV PARLEY_HOST=0.0.0.0 PARLEY_PORT=8080 PARLEY_DATA_DIR=/data PARLEY_SHUTDOWN_GRACE=8
STOPSIGNAL SIGTERM
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
CMD ["parley", "serve"]
