#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (a package of their own, instrumented with -sanitize=fuzzer,address) and runs
# each for FUZZ_SECONDS (default 60), starting from the seeds in Fuzz/Corpus/<target>. Exits non-zero on any crash,
# leak or timeout, naming the input libFuzzer saved; turn that input into a regression test.
# Usage: scripts/fuzz.sh [TARGET...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzUpstreamStream FuzzMarkdown FuzzUploads)
swift build --scratch-path ../.build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >&2
bin=$(swift build --scratch-path ../.build-fuzz --show-bin-path)
mkdir -p ../.build-fuzz/crashes
status=0
for target in "${targets[@]}"; do
  work=../.build-fuzz/corpus/$target
  mkdir -p "$work"
  echo "== $target for ${seconds}s"
  if ! "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="../.build-fuzz/crashes/$target-" "$work" "Corpus/$target" 2> "../.build-fuzz/$target.log"; then
    echo "!! $target failed; the input is in .build-fuzz/crashes/, the log in .build-fuzz/$target.log"
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|cov: " "../.build-fuzz/$target.log" | tail -4
done
exit $status
