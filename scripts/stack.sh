# shellcheck shell=bash
# The test stack, sourced by scripts/test.sh and scripts/faults.sh (not run
# by itself): a throwaway PostgreSQL (scripts/pg.sh) and a throwaway mail
# system, Postfix + Dovecot (scripts/mailstack.sh), each on free ports and in
# directories of this run, so that runs from several checkouts on one machine
# do not meet; plus the tools some tests call. Both are stopped when the
# sourcing script exits.
#
# After `stack_up` these are exported for the tests:
#   DOPIS_TEST_POSTGRES_URL       the cluster's admin URL (each test makes a database of its own)
#   DOPIS_TEST_SMTP_PORT, DOPIS_TEST_IMAP_PORT                    plaintext on loopback
#   DOPIS_TEST_IMAPS_PORT, DOPIS_TEST_SUBMISSION_PORT, DOPIS_TEST_SMTPS_PORT, DOPIS_TEST_CA_FILE
#                                 TLS and AUTH, and the CA that signed the servers' certificate
#   DOPIS_TEST_OAUTH2_KEY_FILE    the key (base64) that signs the OAuth2 tokens the IMAP and
#                                 submission ports accept (XOAUTH2; an HS256 JWT, `sub` = user)
#   MAILSTACK_DIR, MAILSTACK_*_PORT
#   DOPIS_TEST_SCID_ROOT               Debian's scid-data, tdom and libgumbo1 unpacked (XFCC interop)
#   DOPIS_TEST_CAISSIFY_PYTHON           a python with caissify-pairings (the Swiss pairing oracle)
# env in: DOPIS_PG_DIR, MAILSTACK_DIR (default: a new temp dir each)

declare -F step >/dev/null || step() { printf '\n==> %s\n' "$*"; }

stack_mail_dir_made=""
stack_pg_dir_made=""
stack_down() {
    if [ -n "${MAILSTACK_DIR:-}" ]; then scripts/mailstack.sh stop >/dev/null || true; fi
    if [ -n "$stack_mail_dir_made" ]; then rm -rf "$stack_mail_dir_made"; fi
    scripts/pg.sh stop || true
    if [ -n "$stack_pg_dir_made" ]; then rm -rf "$stack_pg_dir_made"; fi
}

stack_up() {
    step "starting a throwaway PostgreSQL"
    trap stack_down EXIT
    # Its own directory, as the mail system has: `pg.sh start` stops and wipes
    # the cluster of its directory, so with pg.sh's one default a run from
    # another checkout stopped this one's cluster in the middle of its tests.
    if [ -z "${DOPIS_PG_DIR:-}" ]; then
        DOPIS_PG_DIR=$(mktemp -d /tmp/dopis-test-pg.XXXXXX); stack_pg_dir_made=$DOPIS_PG_DIR
    fi
    export DOPIS_PG_DIR
    DOPIS_TEST_POSTGRES_URL=$(scripts/pg.sh start)
    export DOPIS_TEST_POSTGRES_URL
    echo "PostgreSQL for the tests: $DOPIS_TEST_POSTGRES_URL"

    step "starting a throwaway mail system (Postfix + Dovecot)"
    # Its own directory and free ports, so runs from several checkouts on one
    # machine do not meet (mailstack.sh would otherwise stop the other's daemons).
    if [ -z "${MAILSTACK_DIR:-}" ]; then
        MAILSTACK_DIR=$(mktemp -d /tmp/dopis-test-mail.XXXXXX); stack_mail_dir_made=$MAILSTACK_DIR
    fi
    local free_smtp free_imap free_lmtp free_imaps free_submission free_smtps
    read -r free_smtp free_imap free_lmtp free_imaps free_submission free_smtps < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(6)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
    export MAILSTACK_DIR
    export MAILSTACK_SMTP_PORT=${MAILSTACK_SMTP_PORT:-$free_smtp}
    export MAILSTACK_IMAP_PORT=${MAILSTACK_IMAP_PORT:-$free_imap}
    export MAILSTACK_LMTP_PORT=${MAILSTACK_LMTP_PORT:-$free_lmtp}
    export MAILSTACK_IMAPS_PORT=${MAILSTACK_IMAPS_PORT:-$free_imaps}
    export MAILSTACK_SUBMISSION_PORT=${MAILSTACK_SUBMISSION_PORT:-$free_submission}
    export MAILSTACK_SMTPS_PORT=${MAILSTACK_SMTPS_PORT:-$free_smtps}
    scripts/mailstack.sh start
    export DOPIS_TEST_SMTP_PORT=$MAILSTACK_SMTP_PORT DOPIS_TEST_IMAP_PORT=$MAILSTACK_IMAP_PORT
    # TLS and AUTH: IMAPS, submission (STARTTLS), smtps (TLS), and the CA that signed their certificate
    export DOPIS_TEST_IMAPS_PORT=$MAILSTACK_IMAPS_PORT DOPIS_TEST_SUBMISSION_PORT=$MAILSTACK_SUBMISSION_PORT \
           DOPIS_TEST_SMTPS_PORT=$MAILSTACK_SMTPS_PORT DOPIS_TEST_CA_FILE=$MAILSTACK_DIR/tls/ca.crt
    # OAuth2: the tests sign their own access tokens with this key
    export DOPIS_TEST_OAUTH2_KEY_FILE=$MAILSTACK_DIR/oauth2/hs256.key

    step "tools the tests use (faketime shifts a daemon's clock; pgn-extract reads our PGN; GNU time measures the daemon's memory; python3-icalendar reads our calendar files; systemd-analyze checks our unit; prometheus_client parses /metrics; chromium reads the web pages)"
    if ! command -v faketime >/dev/null || ! { command -v pgn-extract >/dev/null || [ -x /usr/games/pgn-extract ]; } || [ ! -x /usr/bin/time ] \
        || ! /usr/bin/python3 -c 'import icalendar' 2>/dev/null || ! command -v systemd-analyze >/dev/null \
        || ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends faketime pgn-extract time python3-icalendar systemd python3-prometheus-client; } \
            >/tmp/dopis-apt-tools.log 2>&1 || { tail -n 20 /tmp/dopis-apt-tools.log >&2; return 1; }
    fi
    # python-chess reads the PGN of `dopis event pgn` (Debian's package, else pip's)
    if ! /usr/bin/python3 -c 'import chess.pgn' 2>/dev/null; then
        { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-chess ||
          /usr/bin/python3 -m pip install -q --break-system-packages chess; } \
            >/tmp/dopis-python-chess.log 2>&1 || { tail -n 20 /tmp/dopis-python-chess.log >&2; return 1; }
    fi
    # caissify-pairings (PyPI: an implementation of the FIDE Dutch system of
    # its own) pairs the random Swiss tournaments of tests/it/swiss_oracle.rs
    # against dopis's; in a venv of its own, so that the pinned version and
    # its networkx do not touch the system's python.
    local caissify=${XDG_CACHE_HOME:-$HOME/.cache}/dopis/caissify
    if ! "$caissify/bin/python" -c 'import caissify_pairings.engines.dutch' 2>/dev/null; then
        { { /usr/bin/python3 -c 'import ensurepip' 2>/dev/null ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv; } &&
          /usr/bin/python3 -m venv "$caissify" &&
          "$caissify/bin/pip" install -q caissify-pairings==0.5.0; } \
            >/tmp/dopis-caissify.log 2>&1 || { tail -n 20 /tmp/dopis-caissify.log >&2; return 1; }
    fi
    export DOPIS_TEST_CAISSIFY_PYTHON=$caissify/bin/python
    # XFCC interop (tests/it/xfcc.rs): Scid's own Xfcc code from Debian's
    # scid-data with tDOM, unpacked (not installed) into a cache folder and
    # run under tclsh; zeep drives the endpoint from its WSDL alone.
    if ! /usr/bin/python3 -c 'import zeep' 2>/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-zeep \
            >/tmp/dopis-zeep.log 2>&1 || { tail -n 20 /tmp/dopis-zeep.log >&2; return 1; }
    fi
    if ! command -v tclsh8.6 >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tcl8.6 \
            >/tmp/dopis-tcl.log 2>&1 || { tail -n 20 /tmp/dopis-tcl.log >&2; return 1; }
    fi
    export DOPIS_TEST_SCID_ROOT=${DOPIS_TEST_SCID_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/dopis/scid/root}
    if [ ! -f "$DOPIS_TEST_SCID_ROOT/usr/share/scid/tcl/tools/correspondence.tcl" ] \
        || ! ls "$DOPIS_TEST_SCID_ROOT"/usr/lib/tcltk/*/tdom*/pkgIndex.tcl >/dev/null 2>&1; then
        local debs
        debs=$(mktemp -d)
        # apt-get download writes into the current folder, as the _apt user where it can.
        chmod 777 "$debs"
        ( cd "$debs" && apt-get download scid-data tdom libgumbo1 &&
          mkdir -p "$DOPIS_TEST_SCID_ROOT" &&
          for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$DOPIS_TEST_SCID_ROOT" || exit 1; done ) \
            >/tmp/dopis-scid.log 2>&1 || { tail -n 20 /tmp/dopis-scid.log >&2; rm -rf "$debs"; return 1; }
        rm -rf "$debs"
    fi
    # Chromium, headless, reads the web pages in tests/it/web_pages.rs (Debian's package)
    if ! command -v chromium >/dev/null; then
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; } \
            >/tmp/dopis-chromium.log 2>&1 || { tail -n 20 /tmp/dopis-chromium.log >&2; return 1; }
    fi
    # The accessibility test (tests/it/accessibility.rs) drives that Chromium with
    # playwright-core (over the DevTools protocol; `npx playwright install` is not
    # needed) and runs axe-core in each page: both from npm, pinned, into a cache
    # folder of their own (NODE_PATH points there), never installed globally.
    local node_dir=${XDG_CACHE_HOME:-$HOME/.cache}/dopis/node
    if [ ! -f "$node_dir/node_modules/axe-core/axe.min.js" ] || [ ! -f "$node_dir/node_modules/playwright-core/package.json" ]; then
        if ! command -v npm >/dev/null; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm \
                >/tmp/dopis-node.log 2>&1 || { tail -n 20 /tmp/dopis-node.log >&2; return 1; }
        fi
        mkdir -p "$node_dir"
        npm install --prefix "$node_dir" --no-audit --no-fund --no-save --loglevel=error \
            playwright-core@1.65.2 axe-core@4.14.1 >/tmp/dopis-npm.log 2>&1 \
            || { tail -n 20 /tmp/dopis-npm.log >&2; return 1; }
    fi
    # feedparser reads the events' Atom feeds (tests/it/feeds.rs), from PyPI
    if ! /usr/bin/python3 -c 'import feedparser' 2>/dev/null; then
        /usr/bin/python3 -m pip install -q --break-system-packages feedparser==6.0.14 \
            >/tmp/dopis-feedparser.log 2>&1 || { tail -n 20 /tmp/dopis-feedparser.log >&2; return 1; }
    fi
    command -v faketime
}

# Prints the fault suite's figures (lines `fault-figure TEST | NAME = VALUE`
# in the file $1) as a table, one block per test.
print_fault_figures() {
    awk '
        /^fault-figure / {
            line = substr($0, 14)
            bar = index(line, " | "); eq = index(line, " = ")
            if (bar == 0 || eq == 0) { print "  " line; next }
            test = substr(line, 1, bar - 1)
            name = substr(line, bar + 3, eq - bar - 3)
            value = substr(line, eq + 3)
            if (test != last) { printf "  %s\n", test; last = test }
            printf "      %-52s %s\n", name, value
        }' "$1"
}
