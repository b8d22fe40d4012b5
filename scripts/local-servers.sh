# Sourced by scripts/bench.sh and scripts/soak.sh: a release `parley-dev mock-upstream` (port 18089) and `parley serve`
# (port 18080) on loopback with a fresh data folder, both stopped and the folder removed when the script exits. On a
# machine with two or more cores the server runs on CPU 0, the mock on CPU 1, and `load_pin` puts the load there too.

# start_local_servers BIN_DIR MOCK_FLAGS [VARIABLE=value ...]: starts both (the variables go to the server) and waits
# for /healthz; sets server_pid, data (the folder, which also holds server.log and mock.log), load_pin, mock_url and
# mock_ca for clients of the mock, and parley_url and parley_ca for clients of the server. With MOCK_TLS=1 the mock
# serves HTTPS (HTTP/2 or HTTP/1.1, as hosted providers do) with a self-signed certificate, which the server trusts
# through PARLEY_UPSTREAM_CA_FILE. With PARLEY_TLS=1 the server serves HTTPS (HTTP/2 or HTTP/1.1, as to a browser)
# with a self-signed certificate made by openssl.
# pick_cpu_pins: sets server_pin and load_pin, the taskset prefixes that put the server on CPU 0 and the mock and load
# on CPU 1 (empty on a machine with one core, or without taskset), and pins_described, which says so.
pick_cpu_pins() {
  server_pin=() load_pin=() pins_described="not pinned to CPUs"
  if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    server_pin=(taskset -c 0) load_pin=(taskset -c 1) pins_described="server on CPU 0, mock and load on CPU 1"
  fi
}

start_local_servers() {
  local bin=$1 mock_flags=$2
  shift 2
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  # A server left over from an earlier run would answer the health check below in place of the new one.
  if curl -sfk https://127.0.0.1:18080/healthz >/dev/null || curl -sf http://127.0.0.1:18080/healthz >/dev/null \
    || curl -sfk https://127.0.0.1:18089/stats >/dev/null || curl -sf http://127.0.0.1:18089/stats >/dev/null; then
    echo "port 18080 or 18089 is already serving (a parley serve or mock-upstream left from an earlier run?); stop it first" >&2
    return 1
  fi
  data=$(mktemp -d)
  pick_cpu_pins
  local_server_pids=()
  trap stop_local_servers EXIT
  mock_url=http://127.0.0.1:18089 mock_ca=
  if [ "${MOCK_TLS:-0}" = 1 ]; then
    mkdir "$data/tls"
    mock_flags="$mock_flags --tls-self-signed $data/tls" mock_url=https://127.0.0.1:18089 mock_ca=$data/tls/cert.pem
  fi
  parley_url=http://127.0.0.1:18080 parley_ca=
  if [ "${PARLEY_TLS:-0}" = 1 ]; then
    mkdir -p "$data/server-tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
      -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$data/server-tls/key.pem" -out "$data/server-tls/cert.pem" 2>/dev/null
    parley_url=https://127.0.0.1:18080 parley_ca=$data/server-tls/cert.pem
    set -- PARLEY_TLS_CERTIFICATE="$parley_ca" PARLEY_TLS_KEY="$data/server-tls/key.pem" "$@"
  fi
  # shellcheck disable=SC2086
  "${load_pin[@]}" "$bin/parley-dev" mock-upstream --port 18089 $mock_flags > "$data/mock.log" 2>&1 & local_server_pids+=($!)
  if [ -n "$mock_ca" ]; then
    for _ in $(seq 1 100); do [ -s "$data/tls/key.pem" ] && break; sleep 0.05; done
    set -- PARLEY_UPSTREAM_CA_FILE="$mock_ca" "$@"
  fi
  env OPENAI_BASE_URL=$mock_url/v1 OPENAI_API_KEY=bench PARLEY_LOG_LEVEL=warning PARLEY_BCRYPT_COST=4 \
    PARLEY_MODEL_TITLES=off PARLEY_SEND_RATE=0 "$@" "${server_pin[@]}" "$bin/parley" serve --port 18080 --data-dir "$data" \
    > "$data/server.log" 2>&1 &
  server_pid=$!
  local_server_pids+=("$server_pid")
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $pins_described"
  for _ in $(seq 1 100); do
    curl -sf ${parley_ca:+--cacert "$parley_ca"} "$parley_url/healthz" >/dev/null && return 0
    sleep 0.1
  done
  echo "parley serve did not answer /healthz within 10 s; its log:" >&2
  cat "$data/server.log" >&2
  return 1
}

# stop_local_servers: stops both servers and removes the data folder (the EXIT trap); if the server had already died,
# first prints the end of its log (a crash's backtrace is there) and keeps a copy in bench-results/server-crash.log.
stop_local_servers() {
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "parley serve died during the run; the end of its log:" >&2
    tail -n 60 "$data/server.log" >&2
    mkdir -p bench-results && cp "$data/server.log" bench-results/server-crash.log
  fi
  kill "${local_server_pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$data"
}
