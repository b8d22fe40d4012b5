#!/usr/bin/env bash
# Runs the soak: a release build of parley serve and mock-upstream on loopback (as scripts/bench.sh starts them, with
# open sign-up), driven by `parley-bench soak` for SOAK_MINUTES (default 30) with a steady mix of sends, stops,
# reconnects and page views from several users; it fails on an unexpected error or on memory growing after warm-up.
# Usage: scripts/soak.sh [BUILD_DIR]   (default .build-release); extra flags from SOAK_FLAGS; JSON in bench-results/soak.json.
# PARLEY_TLS=1 has the server serve HTTPS (the load then speaks HTTP/2, as a browser does) and MOCK_TLS=1 the mock, as
# for scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-.build-release}/release"
# shellcheck source=scripts/local-servers.sh
source scripts/local-servers.sh
start_local_servers "$bin" "${MOCK_FLAGS:---tokens 100 --delay-ms 10}" PARLEY_SIGNUP=open
status=0
# shellcheck disable=SC2086
"${load_pin[@]}" "$bin/parley-bench" soak --parley "$parley_url" ${parley_ca:+--parley-ca "$parley_ca"} --mock "$mock_url" \
  ${mock_ca:+--mock-ca "$mock_ca"} --server-pid "$server_pid" \
  --minutes "${SOAK_MINUTES:-30}" ${SOAK_FLAGS:-} || status=$?
if [ "$status" -ne 0 ]; then
  echo "the server's log, last lines:"
  tail -n 40 "$data/server.log"
fi
exit "$status"
