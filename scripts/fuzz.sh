#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (a package of their own, instrumented with -sanitize=fuzzer,address) and runs
# each for FUZZ_SECONDS (default 60), starting from the seeds in Fuzz/Corpus/<target>. Exits non-zero on any crash or
# timeout, naming the input libFuzzer saved; turn that input into a regression test.
# Usage: scripts/fuzz.sh [TARGET...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzUpstreamStream FuzzMarkdown FuzzUploads FuzzDocuments)
# PARLEY_FUZZ makes the main package export the libraries the targets import. Swift's own crash backtracer is off: under
# AddressSanitizer it trips ASan itself and leaves its processes holding this script's output open; libFuzzer prints
# the stack instead.
export PARLEY_FUZZ=1 SWIFT_BACKTRACE=enable=no
# LeakSanitizer still checks at exit (a real leak fails the run), less the known false reports listed there.
export LSAN_OPTIONS=suppressions=$PWD/lsan-suppressions.txt
swift build --scratch-path ../.build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >&2
bin=$(swift build --scratch-path ../.build-fuzz --show-bin-path)
mkdir -p ../.build-fuzz/crashes
status=0
for target in "${targets[@]}"; do
  work=../.build-fuzz/corpus/$target
  mkdir -p "$work"
  echo "== $target for ${seconds}s"
  # No leak checks: libFuzzer's heap scans after inputs that allocate more than they free took 90% of the uploads
  # target's time (14 times slower), and never reported a leak.
  if ! "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 \
      -artifact_prefix="../.build-fuzz/crashes/$target-" "$work" "Corpus/$target" 2> "../.build-fuzz/$target.log"; then
    saved=$(sed -n 's/.*Test unit written to \.\.\/\(.*\)/\1/p' "../.build-fuzz/$target.log" | tail -1)
    echo "!! $target failed; the input is ${saved:-in .build-fuzz/crashes/}, the log .build-fuzz/$target.log"
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|cov: " "../.build-fuzz/$target.log" | tail -4
done
exit $status
