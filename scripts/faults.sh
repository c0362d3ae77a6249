#!/usr/bin/env bash
# The fault suite: the real `dopis` binary under crashes (kill -9 under load,
# and while entries close, sections start and a final is built),
# outages (Postfix, Dovecot, PostgreSQL stopped under load), hostile mail,
# forgery and replay, mail loops and two daemons on one database; each test
# prints its figures, shown as a table at the end. The tests are the
# `faults::` tests of tests/it (see docs/contributing.md, "The fault suite").
#
# usage: scripts/faults.sh            the short run (minutes; scripts/test.sh runs it too)
#        scripts/faults.sh --long     the long run, by hand (an hour or more): release
#                                     build, DOPIS_FAULTS=long, one test at a time, and the
#                                     parsers' property tests with PROPTEST_CASES=100000
# env:   FAULTS_THREADS   tests at once in the long run (default 1: figures of one load)
#        PROPTEST_CASES   cases per property in the long run (default 100000)
#        DOPIS_PG_DIR, MAILSTACK_DIR   as for scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

long=""
case "${1:-}" in
    "") ;;
    --long) long=1 ;;
    *) echo "usage: $0 [--long]" >&2; exit 2 ;;
esac

step() { printf '\n==> %s\n' "$*"; }

# PostgreSQL, Postfix + Dovecot and the tools, stopped again on exit (scripts/stack.sh).
source scripts/stack.sh
stack_up

output=$(mktemp /tmp/dopis-faults-output.XXXXXX)
DOPIS_FAULT_FIGURES=$(mktemp /tmp/dopis-fault-figures.XXXXXX)
export DOPIS_FAULT_FIGURES
trap 'rm -f "$output" "$DOPIS_FAULT_FIGURES"; stack_down' EXIT
started=$SECONDS
status=0

if [ -n "$long" ]; then
    export DOPIS_FAULTS=long
    # One test at a time by default: each measures CPU, catch-up times and
    # take-overs of its own load, on a machine that is not also running the others.
    step "the fault tests, long (release build; DOPIS_FAULTS=long, ${FAULTS_THREADS:-1} at a time)"
    cargo test --release --test it faults:: -- --test-threads="${FAULTS_THREADS:-1}" 2>&1 | tee "$output" || status=1
else
    step "the fault tests, short"
    cargo test --test it faults:: 2>&1 | tee "$output" || status=1
fi
ran=$(grep -oE 'test result: .*' "$output" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
if [ "$ran" -eq 0 ]; then
    echo "error: no fault test ran" >&2; status=1
fi

if [ -n "$long" ]; then
    cases=${PROPTEST_CASES:-100000}
    step "the parsers' property tests (inbound mail, commands, notation), PROPTEST_CASES=$cases"
    PROPTEST_CASES=$cases cargo test --release --lib -- mail::inbound:: command:: chess::notation:: \
        2>&1 | tee "$output" || status=1
    passed=$(grep -oE 'test result: .*' "$output" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
    if [ "$passed" -eq 0 ]; then
        echo "error: no parser test ran (were the modules renamed?)" >&2; status=1
    fi
    {
        echo "fault-figure parser property tests | cases per property = $cases"
        echo "fault-figure parser property tests | tests passed (properties and tables) = $passed"
    } >> "$DOPIS_FAULT_FIGURES"
fi

echo
if [ -n "$long" ]; then echo "fault suite figures (long run, $(( (SECONDS - started) / 60 )) min):"
else echo "fault suite figures (short run, $(( SECONDS - started )) s):"; fi
if [ -s "$DOPIS_FAULT_FIGURES" ]; then
    print_fault_figures "$DOPIS_FAULT_FIGURES"
else
    echo "  (none were printed)"
fi
if [ "$status" -ne 0 ]; then
    echo "error: the fault suite failed (see above)" >&2
fi
exit "$status"
