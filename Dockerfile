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

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/plinth /usr/local/bin/plinth
WORKDIR /srv/plinth
COPY migrations migrations
COPY policies policies
COPY seed seed
COPY --from=app /src/app/dist app/dist
COPY --from=app /src/console/dist console/dist
ENV PLINTH_HOST=0.0.0.0 \
    PLINTH_DATA_DIR=/var/lib/plinth \
    PORT=8000
VOLUME /var/lib/plinth
EXPOSE 8000
CMD ["plinth", "serve"]
