#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, started as root: the server
# runs as the unprivileged `postgres` OS user (it refuses to run as root).
#
# usage: scripts/pg.sh start|stop|url|pause|resume
#        (pause/resume stop and start the server on the same data, port and URL: an outage)
# env:   DOPIS_PG_DIR  (default /tmp/dopis-test-pg)   DOPIS_PG_PORT (default: a free port)
# `start` installs PostgreSQL from Debian if its binaries are missing, prints the
# database URL and writes it to $DOPIS_PG_DIR/url.
set -euo pipefail

DIR=${DOPIS_PG_DIR:-/tmp/dopis-test-pg}
RUNAS=postgres

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }

install_pg() {
    if [ -x "$(find_bin)/initdb" ]; then return 0; fi
    echo "pg.sh: installing PostgreSQL (Debian package)..." >&2
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql; } \
        >/tmp/dopis-pg-apt.log 2>&1 || { tail -n 30 /tmp/dopis-pg-apt.log >&2; exit 1; }
}

as_pg() { runuser -u "$RUNAS" -- "$@"; }

start() {
    install_pg
    local bin; bin=$(find_bin)
    id "$RUNAS" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$RUNAS"
    stop
    local port=${DOPIS_PG_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    rm -rf "$DIR"; mkdir -p "$DIR"; chmod 755 "$DIR"; chown "$RUNAS" "$DIR"
    # trust auth on loopback and no fsync: a throwaway cluster for tests only
    as_pg "$bin/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
        >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
    cat >> "$DIR/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
shared_buffers = 128MB
log_min_messages = warning
CONF
    # stdio to a file: a caller reading our output through a pipe must not hang
    as_pg "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 30 start </dev/null >/dev/null 2>&1 \
        || { cat "$DIR/server.log" >&2; exit 1; }
    as_pg "$bin/psql" -h "$DIR" -p "$port" -U postgres -qAt -c "CREATE DATABASE dopis_test" postgres >/dev/null
    local url="postgres://postgres@127.0.0.1:$port/dopis_test?sslmode=disable"
    echo "$url" > "$DIR/url"
    echo "$url"
}

stop() {
    local bin; bin=$(find_bin)
    if [ -d "$DIR/data" ] && [ -x "$bin/pg_ctl" ]; then
        as_pg "$bin/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
}

# A clean shutdown (sessions are ended, as on an admin's restart); the data,
# port and URL stay, for `resume`.
pause() {
    local bin; bin=$(find_bin)
    [ -d "$DIR/data" ] || { echo "pg.sh: no cluster in $DIR to pause (start one first)" >&2; exit 1; }
    as_pg "$bin/pg_ctl" -D "$DIR/data" -m fast -w -t 30 stop </dev/null >/dev/null 2>&1 \
        || { echo "pg.sh: PostgreSQL in $DIR did not stop" >&2; tail -n 20 "$DIR/server.log" >&2; exit 1; }
    echo "PostgreSQL paused ($DIR)"
}

resume() {
    local bin; bin=$(find_bin)
    [ -d "$DIR/data" ] || { echo "pg.sh: no cluster in $DIR to resume (start one first)" >&2; exit 1; }
    as_pg "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 30 start </dev/null >/dev/null 2>&1 \
        || { echo "pg.sh: PostgreSQL in $DIR did not start" >&2; tail -n 20 "$DIR/server.log" >&2; exit 1; }
    echo "PostgreSQL resumed ($DIR)"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    url) cat "$DIR/url" ;;
    pause) pause ;;
    resume) resume ;;
    *) echo "usage: $0 start|stop|url|pause|resume" >&2; exit 2 ;;
esac
