#!/usr/bin/env bash
# Runs the microbenchmarks of the hot paths with a release build: markdown, SSE framing, the persistence flush, the
# store calls of a send, a page of 1,000 messages and start-up on a large database. parley-bench runs on CPU 1; the
# servers it starts on CPU 0.
# Usage: scripts/bench-micro.sh [BUILD_DIR]   (default .build-release); JSON goes to bench-results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-.build-release}/release"
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin=(taskset -c 1); fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); bench on CPU 1, servers on CPU 0"
for bench in markdown sse flush send-path page startup admin; do
  "${pin[@]}" "$bin/parley-bench" "$bench"
done
"${pin[@]}" "$bin/parley-bench" page --branches 50 --output bench-results/page-branches.json
