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

step "cargo test (unit, integration; storage on SQLite and PostgreSQL)"
cargo test 2>&1 | tee /tmp/dopis-test-output.txt

backends=$(grep -oE '(sqlite|postgres)::[a-z_]+ \.\.\. ok' /tmp/dopis-test-output.txt | cut -d: -f1 | sort | uniq -c | tr -s ' ' | paste -sd, -)
echo
echo "storage tests passed per backend:${backends}"
if ! grep -q 'postgres::.* ok' /tmp/dopis-test-output.txt || ! grep -q 'sqlite::.* ok' /tmp/dopis-test-output.txt; then
    echo "error: the storage tests did not run on both SQLite and PostgreSQL" >&2
    exit 1
fi

# One closing line over every test binary, so the total is plain to see.
passed=$(grep -oE 'test result: .*' /tmp/dopis-test-output.txt | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -oE 'test result: .*' /tmp/dopis-test-output.txt | grep -oE '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
echo "tests: ${passed} passed, ${failed} failed"
