#!/usr/bin/env bash
# Runs the end-to-end benchmark: a release build of parley serve and mock-upstream on loopback, driven by parley-bench.
# The server is pinned to CPU 0, the mock and the load generator to CPU 1 (when the machine has two or more).
# Usage: scripts/bench.sh [BUILD_DIR]   (default .build); extra parley-bench flags come from BENCH_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build}
bin="$build/release"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
data=$(mktemp -d)
server_pin=(); load_pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then server_pin=(taskset -c 0); load_pin=(taskset -c 1); fi
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$data"; }
pids=()
trap cleanup EXIT
"${load_pin[@]}" "$bin/parley" mock-upstream --port 18089 ${MOCK_FLAGS:---tokens 200 --delay-ms 10} > "$data/mock.log" 2>&1 & pids+=($!)
OPENAI_BASE_URL=http://127.0.0.1:18089/v1 OPENAI_API_KEY=bench PARLEY_LOG_LEVEL=warning PARLEY_BCRYPT_COST=4 PARLEY_MODEL_TITLES=off PARLEY_SEND_RATE=0 \
  "${server_pin[@]}" "$bin/parley" serve --port 18080 --data-dir "$data" > "$data/server.log" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && break; sleep 0.1; done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); server on CPU 0, mock and load on CPU 1"
# shellcheck disable=SC2086
"${load_pin[@]}" "$bin/parley-bench" --parley http://127.0.0.1:18080 --mock http://127.0.0.1:18089 --server-pid "${pids[1]}" ${BENCH_FLAGS:-}
echo "server peak resident memory: $(grep VmHWM /proc/"${pids[1]}"/status | awk '{print $2, $3}')"
