#!/usr/bin/env bash
# The whole test suite: formatting, lints, docs, unit tests, and the
# integration tests against a real PostgreSQL (and, for the end-to-end mail
# tests, a real Postfix + Dovecot) that this script starts itself, installing
# the Debian packages if they are missing.
#
# usage: scripts/test.sh            (as root on Debian; CI runs exactly this)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets -- -D warnings

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet

step "starting a throwaway PostgreSQL"
DOPIS_TEST_POSTGRES_URL=$(scripts/pg.sh start)
export DOPIS_TEST_POSTGRES_URL
trap 'scripts/pg.sh stop' EXIT
echo "PostgreSQL for the tests: $DOPIS_TEST_POSTGRES_URL"

step "starting a throwaway mail system (Postfix + Dovecot)"
# Its own directory and free ports, so runs from several checkouts on one
# machine do not meet (mailstack.sh would otherwise stop the other's daemons).
mail_dir_made=""
if [ -z "${MAILSTACK_DIR:-}" ]; then
    MAILSTACK_DIR=$(mktemp -d /tmp/dopis-test-mail.XXXXXX); mail_dir_made=$MAILSTACK_DIR
fi
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
trap 'scripts/mailstack.sh stop >/dev/null; [ -n "$mail_dir_made" ] && rm -rf "$mail_dir_made"; scripts/pg.sh stop' EXIT
scripts/mailstack.sh start
export DOPIS_TEST_SMTP_PORT=$MAILSTACK_SMTP_PORT DOPIS_TEST_IMAP_PORT=$MAILSTACK_IMAP_PORT
# TLS and AUTH: IMAPS, submission (STARTTLS), smtps (TLS), and the CA that signed their certificate
export DOPIS_TEST_IMAPS_PORT=$MAILSTACK_IMAPS_PORT DOPIS_TEST_SUBMISSION_PORT=$MAILSTACK_SUBMISSION_PORT \
       DOPIS_TEST_SMTPS_PORT=$MAILSTACK_SMTPS_PORT DOPIS_TEST_CA_FILE=$MAILSTACK_DIR/tls/ca.crt

step "tools the tests use (faketime shifts a daemon's clock; pgn-extract reads our PGN; GNU time measures the daemon's memory)"
if ! command -v faketime >/dev/null || ! { command -v pgn-extract >/dev/null || [ -x /usr/games/pgn-extract ]; } || [ ! -x /usr/bin/time ]; then
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends faketime pgn-extract time; } \
        >/tmp/dopis-apt-tools.log 2>&1 || { tail -n 20 /tmp/dopis-apt-tools.log >&2; exit 1; }
fi
command -v faketime

step "cargo test (unit, integration; storage on SQLite and PostgreSQL; mail on Postfix + Dovecot)"
# Files of this run only: several checkouts may run the suite at once.
output=$(mktemp /tmp/dopis-test-output.XXXXXX)
DOPIS_FAULT_FIGURES=$(mktemp /tmp/dopis-fault-figures.XXXXXX)
export DOPIS_FAULT_FIGURES
cargo test 2>&1 | tee "$output"

backends=$(grep -oE '(sqlite|postgres)::[a-z0-9_]+ \.\.\. ok' "$output" | cut -d: -f1 | sort | uniq -c | tr -s ' ' | paste -sd, -)
echo
echo "storage tests passed per backend:${backends}"
if ! grep -q 'postgres::.* ok' "$output" || ! grep -q 'sqlite::.* ok' "$output"; then
    echo "error: the storage tests did not run on both SQLite and PostgreSQL" >&2
    exit 1
fi

# One closing line over every test binary, so the total is plain to see.
passed=$(grep -oE 'test result: .*' "$output" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -oE 'test result: .*' "$output" | grep -oE '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
echo "tests: ${passed} passed, ${failed} failed"

# The fault suite's figures (the short runs; `scripts/faults.sh --long` for the long ones).
if [ -s "$DOPIS_FAULT_FIGURES" ]; then
    echo
    echo "fault suite figures (short run):"
    sed 's/^fault-figure /  /' "$DOPIS_FAULT_FIGURES"
fi
rm -f "$output" "$DOPIS_FAULT_FIGURES"
