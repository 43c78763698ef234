#!/usr/bin/env bash
# Runs every benchmark and writes target/benchmarks.md (the machine, each figure, its target, what limits it).
#   scripts/bench-all.sh            full mode: each benchmark as documented in docs/benchmarks.md (about 16 minutes on 2 cores)
#   scripts/bench-all.sh --quick    a few seconds each: checks the harness, figures are rough
# Further arguments go to Maven, e.g. -o (offline) or -Dbench.watchers=20000.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false
if [[ "${1:-}" == "--quick" ]]; then
  quick=true
  shift
fi
mvn -q -DskipTests "$@" package
mvn -Pbench -DskipTests "$@" verify -Dbench.main=ark.broker.bench.BenchAll -Dbench.quick="$quick"
