#!/usr/bin/env bash
# Several instances on one machine: the end-to-end bench (parley-bench against a release build and the mock upstream)
# run against one instance on SQLite, one on PostgreSQL, and two on PostgreSQL behind deploy/nginx.conf (and one behind
# it, to tell nginx's part); prints each run's table, the CPU seconds of every process of the site, and the events the
# relay carried. PostgreSQL is Debian's, made in a temporary folder with its default (durable) settings; the site (the
# instances, nginx, PostgreSQL) runs on CPU 0, the mock and the load on CPU 1.
# Usage: scripts/bench-instances.sh [BUILD_DIR]   (default .build); BENCH_FLAGS as for scripts/bench.sh, by default
# one round of 1 and of 500 streams, no Stop measurements; PG_OPTIONS adds server settings (`-c name=value`); RUNS
# names the runs to make (default: sqlite postgres-one postgres-one-nginx postgres-two-nginx; also send-path, the store
# calls of a send on the same PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-.build}/release"
flags=${BENCH_FLAGS:---concurrency 1,500 --rounds 1 --stops 0}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d)
chmod 755 "$work"
site_pin=() load_pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then site_pin=(taskset -c 0) load_pin=(taskset -c 1); fi
as_postgres=()
[ "$(id -u)" = 0 ] && as_postgres=(runuser -u postgres --)
pids=()
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -f "$work/pg/data/postmaster.pid" ] && "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

mkdir -p "$work/pg" && { [ -z "${as_postgres[*]}" ] || chown postgres "$work/pg"; }
"${as_postgres[@]}" "$pg_bin/initdb" -D "$work/pg/data" -U parley --auth=trust -E UTF8 --locale=C -N >/dev/null
"${as_postgres[@]}" "${site_pin[@]}" "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
  -o "-k $work/pg -c listen_addresses='' -c max_connections=200 ${PG_OPTIONS:-}" start >/dev/null

"${load_pin[@]}" "$bin/parley-dev" mock-upstream --port 18089 --tokens 200 --delay-ms 10 > "$work/mock.log" 2>&1 &
pids+=($!)

# CPU seconds (user + system) of the processes given.
cpu_of() {
  local total=0 hz
  hz=$(getconf CLK_TCK)
  for pid in "$@"; do
    total=$(awk -v t="$total" -v hz="$hz" '{printf "%.2f", t + ($14 + $15) / hz}' /proc/"$pid"/stat)
  done
  echo "$total"
}
# The difference of two CPU readings.
spent() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
postgres_pids() {
  local main
  main=$(head -1 "$work/pg/data/postmaster.pid")
  echo "$main" $(pgrep -P "$main")
}
# A counter's total from an instance's /metrics (0 when absent).
counter() { curl -s "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 ~ "^"name {s += $2} END {printf "%d", s}'; }

# start_instance PORT [VARIABLE=value ...]: a release `parley serve` on the site's core; its pid goes to instance_pids.
start_instance() {
  local port=$1
  shift
  mkdir -p "$work/data-$port"
  env OPENAI_BASE_URL=http://127.0.0.1:18089/v1 OPENAI_API_KEY=bench PARLEY_LOG_LEVEL=warning PARLEY_BCRYPT_COST=4 \
    PARLEY_MODEL_TITLES=off PARLEY_SEND_RATE=0 PARLEY_TRUSTED_PROXIES=127.0.0.1 "$@" \
    "${site_pin[@]}" "$bin/parley" serve --port "$port" --data-dir "$work/data-$port" > "$work/server-$port.log" 2>&1 &
  instance_pids+=($!) pids+=($!)
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return 0; sleep 0.1; done
  echo "parley serve on $port did not start:" >&2 && cat "$work/server-$port.log" >&2 && return 1
}

# start_nginx PORT...: deploy/nginx.conf on port 18090 in front of the instances on PORTs.
start_nginx() {
  local folder="$work/nginx" servers=""
  mkdir -p "$folder"/{body,proxy,fastcgi,uwsgi,scgi}
  for port in "$@"; do servers+="    server 127.0.0.1:$port max_fails=1 fail_timeout=5s;\n"; done
  grep -v 'server parley-' deploy/nginx.conf | sed -e "s|upstream parley {|upstream parley {\n$servers|" \
    -e "s|listen 80;|listen 127.0.0.1:18090;|" > "$folder/site.conf"
  cat > "$folder/nginx.conf" <<CONF
daemon off;
master_process off;
pid $folder/nginx.pid;
error_log $folder/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $folder/body;
    proxy_temp_path $folder/proxy;
    fastcgi_temp_path $folder/fastcgi;
    uwsgi_temp_path $folder/uwsgi;
    scgi_temp_path $folder/scgi;
    include $folder/site.conf;
}
CONF
  "${site_pin[@]}" /usr/sbin/nginx -p "$folder" -c "$folder/nginx.conf" &
  nginx_pid=$! pids+=($!)
  for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18090/healthz >/dev/null && return 0; sleep 0.1; done
  echo "nginx did not start:" >&2 && cat "$folder/error.log" >&2 && return 1
}

# run NAME URL: the bench against URL, then the CPU each process of the site used and the relay's counts.
run() {
  local name=$1 url=$2 site=("${instance_pids[@]}" ${nginx_pid:+"$nginx_pid"})
  local before pg_before
  before=$(cpu_of "${site[@]}") pg_before=$(cpu_of $(postgres_pids))
  echo "== $name"
  # shellcheck disable=SC2086
  "${load_pin[@]}" "$bin/parley-bench" --parley "$url" --mock http://127.0.0.1:18089 $flags \
    --output "bench-results/instances-$name.json" | grep -v '^server idle memory'
  # shellcheck disable=SC2046
  echo "site CPU: instances and nginx $(spent "$before" "$(cpu_of "${site[@]}")") s," \
    "PostgreSQL $(spent "$pg_before" "$(cpu_of $(postgres_pids))") s"
  for port in "${ports[@]}"; do
    echo "instance $port: relayed $(counter "$port" parley_relay_events_sent_total) events" \
      "in $(counter "$port" parley_relay_notifications_sent_total) notifications," \
      "received $(counter "$port" parley_relay_events_received_total)"
  done
}

# stop_site: stops the instances and nginx of a run.
stop_site() {
  [ ${#instance_pids[@]} -eq 0 ] && [ -z "$nginx_pid" ] && return 0
  kill "${instance_pids[@]}" ${nginx_pid:+"$nginx_pid"} 2>/dev/null || true
  wait "${instance_pids[@]}" ${nginx_pid:+"$nginx_pid"} 2>/dev/null || true
  instance_pids=() nginx_pid=
}

database() {
  "${as_postgres[@]}" "$pg_bin/createdb" -h "$work/pg" -U parley "$1"
  echo "postgres://parley@/$1?host=$work/pg"
}

mkdir -p bench-results
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
  "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}')"
instance_pids=() nginx_pid= ports=()
for name in ${RUNS:-sqlite postgres-one postgres-one-nginx postgres-two-nginx}; do
  case $name in
    sqlite) start_instance 18080 && run sqlite http://127.0.0.1:18080 ;;
    postgres-one)
      url=$(database one) ports=(18080)
      start_instance 18080 PARLEY_DATABASE_URL="$url" && run "$name" http://127.0.0.1:18080 ;;
    postgres-one-nginx)
      url=$(database one_nginx) ports=(18080)
      start_instance 18080 PARLEY_DATABASE_URL="$url" && start_nginx 18080 && run "$name" http://127.0.0.1:18090 ;;
    postgres-two-nginx)
      url=$(database two_nginx) ports=(18080 18081)
      start_instance 18080 PARLEY_DATABASE_URL="$url" && start_instance 18081 PARLEY_DATABASE_URL="$url" \
        && start_nginx 18080 18081 && run "$name" http://127.0.0.1:18090 ;;
    send-path)
      url=$(database send_path)
      echo "== send-path on PostgreSQL"
      "${load_pin[@]}" "$bin/parley-bench" send-path --sends 300 --database-url "$url" \
        --output bench-results/send-path-postgres.json 2>&1 | grep -v 'migrated the database' ;;
    *) echo "unknown run $name" >&2 && exit 64 ;;
  esac
  stop_site
done
