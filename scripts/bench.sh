#!/usr/bin/env bash
# Runs the end-to-end benchmark: a release build of parley serve and mock-upstream on loopback, driven by parley-bench.
# The server is pinned to CPU 0, the mock and the load generator to CPU 1 (when the machine has two or more).
# Usage: scripts/bench.sh [BUILD_DIR]   (default .build); extra parley-bench flags come from BENCH_FLAGS, the mock's
# from MOCK_FLAGS; MOCK_TLS=1 has the mock serve HTTPS, as hosted providers do; PARLEY_TLS=1 has the server serve
# HTTPS, so that the streams share HTTP/2 connections as a browser's do.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build}
bin="$build/release"
# shellcheck source=scripts/local-servers.sh
source scripts/local-servers.sh
# How fast the server's core is, before anything runs on it: machines of one kind have differed nearly threefold
# between sessions (a `token` event's frame in 404 to 1,550 ns), and every figure below moves with it.
pick_cpu_pins
calibration=$(mktemp)
"${server_pin[@]}" "$bin/parley-bench" sse --runs 3 --output "$calibration" \
  | awk '/ns per event/ {printf "machine speed: a token event framed in %.0f ns on the server'"'"'s core\n", $NF}'
rm -f "$calibration"
start_local_servers "$bin" "${MOCK_FLAGS:---tokens 200 --delay-ms 10}"
# CPU seconds a process has used (user + system), from /proc.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' /proc/"$1"/stat; }
mock_pid=${local_server_pids[0]}
mock_cpu_before=$(cpu_seconds "$mock_pid")
# The mock and the load generator share one core: when their CPU seconds come near the run's wall time, that core is
# saturated and every first token waits for it, straight to the mock as well as through Parley.
TIMEFORMAT='load generator: %R s wall, %U s user + %S s system CPU'
# shellcheck disable=SC2086
time "${load_pin[@]}" "$bin/parley-bench" --parley "$parley_url" ${parley_ca:+--parley-ca "$parley_ca"} --mock "$mock_url" ${mock_ca:+--mock-ca "$mock_ca"} \
  --server-pid "$server_pid" ${BENCH_FLAGS:-}
echo "mock CPU: $(awk -v a="$mock_cpu_before" -v b="$(cpu_seconds "$mock_pid")" 'BEGIN {printf "%.2f", b - a}') s"
echo "server peak resident memory: $(grep VmHWM /proc/"$server_pid"/status | awk '{print $2, $3}')"
