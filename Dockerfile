# The plinth binary and the project's SQL on a slim Debian with PostgreSQL's
# server binaries (for the embedded default when no DATABASE_URL is given).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY crates crates
RUN cargo build --release --locked -p plinth-server

FROM node:20-bookworm-slim AS app
WORKDIR /src
COPY sdk-ts sdk-ts
COPY app app
COPY console console
RUN cd app && npm ci --no-audit --no-fund && npx vite build
RUN cd console && npm ci --no-audit --no-fund && npx vite build

# Deno, which runs the users' edge functions (functions/<name>/index.ts), from
# the binary the npm registry ships (the version of scripts/lib.sh's ensure_deno).
FROM node:20-bookworm-slim AS deno
ARG DENO_VERSION=2.9.6
ARG TARGETARCH
WORKDIR /deno
RUN arch=$(case "${TARGETARCH:-$(dpkg --print-architecture)}" in arm64) echo arm64 ;; *) echo x64 ;; esac) \
 && npm pack --silent "@deno/linux-$arch-glibc@$DENO_VERSION" \
 && tar -xzf deno-linux-*-glibc-*.tgz package/deno \
 && install -m 755 package/deno /deno/deno \
 && /deno/deno --version

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/plinth /usr/local/bin/plinth
COPY --from=deno /deno/deno /usr/local/bin/deno
WORKDIR /srv/plinth
COPY migrations migrations
COPY policies policies
COPY seed seed
COPY --from=app /src/app/dist app/dist
COPY --from=app /src/console/dist console/dist
# User functions: mount or copy them into /srv/plinth/functions (the default
# PLINTH_FUNCTIONS_DIR); their npm:/jsr: modules are cached in the volume.
ENV PLINTH_HOST=0.0.0.0 \
    PLINTH_DATA_DIR=/var/lib/plinth \
    PLINTH_DENO_BIN=/usr/local/bin/deno \
    DENO_DIR=/var/lib/plinth/deno-dir \
    PORT=8000
VOLUME /var/lib/plinth
EXPOSE 8000
CMD ["plinth", "serve"]
