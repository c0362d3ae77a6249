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

# PostgreSQL, Postfix + Dovecot and the tools, stopped again on exit (scripts/stack.sh).
source scripts/stack.sh
stack_up

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
    print_fault_figures "$DOPIS_FAULT_FIGURES"
fi
rm -f "$output" "$DOPIS_FAULT_FIGURES"
