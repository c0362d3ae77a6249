# dopis in a container: a multi-stage build (the Rust toolchain only in the
# first stage) and a small Debian runtime that runs dopis as a user of its
# own, with the config and the data as volumes.
#
#   docker build -t dopis .
#   docker run --rm dopis demo                       # a whole game by mail
#   docker compose up -d                             # dopis + PostgreSQL (compose.yaml)
#
# The tests build this image and play the demo in it where a container
# runtime is available (tests/it/packaging.rs).

# The toolchain the project is built and tested with (docs/contributing.md).
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
# BuildKit cache mounts keep the crates and the build between image builds,
# so a change to dopis rebuilds dopis only (`target` lives in the cache, so
# the binary is copied out of it in the same step).
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin dopis \
    && install -m 0755 target/release/dopis /usr/local/bin/dopis

FROM debian:bookworm-slim
# dopis needs only the C library (TLS roots are built in: webpki-roots, plus
# `ca_file` in the config for a private CA).
RUN groupadd --system --gid 10001 dopis \
    && useradd --system --uid 10001 --gid dopis --home-dir /var/lib/dopis --shell /usr/sbin/nologin dopis \
    && install -d -o dopis -g dopis -m 0750 /var/lib/dopis \
    && install -d -m 0755 /etc/dopis
COPY --from=build /usr/local/bin/dopis /usr/local/bin/dopis
USER dopis:dopis
WORKDIR /var/lib/dopis
# /etc/dopis/dopis.toml: the config (mount it read-only; secrets may also
# come as DOPIS_… environment variables). /var/lib/dopis: the SQLite
# database and the Maildir of the embedded default.
ENV DOPIS_CONFIG=/etc/dopis/dopis.toml
VOLUME ["/var/lib/dopis"]
ENTRYPOINT ["/usr/local/bin/dopis"]
CMD ["serve"]
