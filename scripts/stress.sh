#!/usr/bin/env bash
# The long stress run: thousands of `dopis` CLI commands and `serve --once`
# runs per database (SQLite and a throwaway PostgreSQL), under CPU contention
# (a busy loop on every core), each under a hang guard. None may hang or
# fail; each database prints its figures (runs, hangs, failures, median and
# longest time of a run). The short version of the same test runs in
# scripts/test.sh.
#
# usage: scripts/stress.sh [RUNS]      (RUNS per database, default 4000)
set -euo pipefail
cd "$(dirname "$0")/.."

export DOPIS_STRESS_RUNS=${1:-${DOPIS_STRESS_RUNS:-4000}}
# A cluster of its own, so a test run from this checkout is left alone.
export DOPIS_PG_DIR=${DOPIS_PG_DIR:-/tmp/dopis-stress-pg}
DOPIS_TEST_POSTGRES_URL=$(scripts/pg.sh start)
export DOPIS_TEST_POSTGRES_URL
trap 'scripts/pg.sh stop' EXIT

# The release build: the hangs this guards against were seen on it.
cargo test --release --test it exit:: -- --nocapture
