#!/usr/bin/env bash
# The docker-compose topology on this machine, without Docker: the local Postgres and
# Redis, N shard processes and one API process, in the background.
#
#   ops/cluster.sh start [shards=2]   migrate, start the shards and the API, wait for /_health
#   ops/cluster.sh stop               SIGTERM, wait, then SIGKILL what is left
#   ops/cluster.sh status             what runs, where, and the API's health
#
# Logs and pid files: .tmp/cluster/{migrate,shard1..N,api}.log and *.pid.
# Environment: PORT (API, default 8080), DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/guildhall, created when missing), REDIS_URL
# (default redis://127.0.0.1:6379); LOG_REQUESTS, ADMIN_BOOTSTRAP_KEY and
# the other settings of src/Config.ts pass through to every process.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly ROOT=$PWD
readonly DIR="$ROOT/.tmp/cluster"
readonly NODE="$ROOT/node_modules/.bin/node"
# The Node flags of package.json's start script: every process runs as `npm start` runs it.
SERVER_FLAGS=$("$NODE" -p 'require("./package.json").scripts.start.split(/\s+/).filter((t) => t.startsWith("--")).join(" ")')
readonly SERVER_FLAGS
readonly FIRST_SHARD_PORT=34431
readonly START_TIMEOUT=60 STOP_TIMEOUT=20

readonly DEFAULT_DATABASE_URL=postgres://postgres@127.0.0.1:5432/guildhall
export DATABASE_URL="${DATABASE_URL:-$DEFAULT_DATABASE_URL}"
readonly DEFAULT_REDIS_URL=redis://127.0.0.1:6379
export REDIS_URL="${REDIS_URL:-$DEFAULT_REDIS_URL}"
# Only the API gets these (passed explicitly), not the shard processes.
PORT="${PORT:-8080}"
HOST="${HOST:-127.0.0.1}"

log() { echo "cluster: $*"; }
die() { echo "cluster: ERROR: $*" >&2; exit 1; }

usage() {
  echo "usage: ops/cluster.sh start [shards=2] | stop | status" >&2
  exit 2
}

# The script a process of ours runs, from its name (api, shardN, migrate).
script_of() {
  case $1 in
    api) echo src/main.ts ;;
    shard*) echo shards/main.ts ;;
  esac
}

# Pid of a running process of ours named $1, or nothing. A pid file whose process is
# gone, or whose pid now belongs to another program, does not count.
live_pid() {
  local file="$DIR/$1.pid" pid args
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  args=$(ps -o args= -p "$pid" 2>/dev/null) || return 0
  [[ "$args" == *"$(script_of "$1")"* ]] && echo "$pid"
  return 0
}

# Names of the processes that have a pid file: api first, then the shards in order.
names() {
  local f
  [ -f "$DIR/api.pid" ] && echo api
  for f in $(ls "$DIR"/shard*.pid 2>/dev/null | sort -V); do basename "$f" .pid; done
  return 0
}

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

health() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -m 2 "http://127.0.0.1:$PORT/_health" 2>/dev/null
  else
    "$NODE" -e "fetch('http://127.0.0.1:$PORT/_health', { signal: AbortSignal.timeout(2000) })
      .then(async (r) => { if (!r.ok) process.exit(1); console.log(await r.text()) }, () => process.exit(1))"
  fi
}

show_log() {
  echo "---- last lines of $DIR/$1.log ----" >&2
  tail -n 30 "$DIR/$1.log" >&2 || true
  echo "----" >&2
}

# start_process NAME SCRIPT [ENV ARGS...]: runs SCRIPT with Node 24 in the background, its
# environment changed by ENV ARGS (as env(1) takes them: -u NAME, NAME=VALUE).
start_process() {
  local name=$1 script=$2
  shift 2
  # shellcheck disable=SC2086 # the flags are words
  env "$@" nohup "$NODE" $SERVER_FLAGS "$script" </dev/null >"$DIR/$name.log" 2>&1 &
  echo $! >"$DIR/$name.pid"
  log "started $name (pid $!, log .tmp/cluster/$name.log)"
}

# wait_until NAME CHECK...: until CHECK succeeds, while NAME's process lives, bounded.
wait_until() {
  local name=$1 deadline=$((SECONDS + START_TIMEOUT))
  shift
  until "$@" >/dev/null 2>&1; do
    if [ -z "$(live_pid "$name")" ]; then
      show_log "$name"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      show_log "$name"
      echo "cluster: $name is not ready after ${START_TIMEOUT}s" >&2
      return 1
    fi
    sleep 0.5
  done
}

cmd_stop() {
  local name pid pids=() deadline
  for name in $(names); do
    pid=$(live_pid "$name")
    if [ -n "$pid" ]; then
      log "stopping $name (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$name:$pid")
    fi
  done
  deadline=$((SECONDS + STOP_TIMEOUT))
  for entry in "${pids[@]}"; do
    name=${entry%%:*}
    while [ -n "$(live_pid "$name")" ] && ((SECONDS < deadline)); do sleep 0.2; done
    pid=$(live_pid "$name")
    if [ -n "$pid" ]; then
      log "$name (pid $pid) still runs after ${STOP_TIMEOUT}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$DIR"/*.pid "$DIR/api.port"
  if ((${#pids[@]} == 0)); then log "nothing was running"; else log "stopped"; fi
}

abort_start() {
  echo "cluster: start failed; stopping what was started" >&2
  cmd_stop >&2
  exit 1
}

cmd_status() {
  local name pid any=false state
  if [ -f "$DIR/api.port" ]; then PORT=$(cat "$DIR/api.port"); fi
  for name in $(names); do
    any=true
    pid=$(live_pid "$name")
    if [ -n "$pid" ]; then state="running (pid $pid)"; else state="NOT RUNNING"; fi
    printf '  %-8s %-22s log .tmp/cluster/%s.log\n' "$name" "$state" "$name"
  done
  if ! $any; then
    log "not started (no pid files under .tmp/cluster)"
    return 3
  fi
  if body=$(health); then
    log "API http://127.0.0.1:$PORT/_health: $body"
  else
    log "API http://127.0.0.1:$PORT/_health does not answer 200"
    return 1
  fi
}

cmd_start() {
  local shards=$1 i name port
  [[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "the number of shards must be a positive integer, not '$shards'"
  [ -x "$NODE" ] || die "$NODE is missing: run 'npm ci' first (Node 24 comes from the 'node' dependency)."
  "$NODE" --version | grep -q '^v24\.' || die "$NODE is $("$NODE" --version), not Node 24: run 'npm ci'."
  for name in $(names); do
    if [ -n "$(live_pid "$name")" ]; then
      die "already running ($name); see 'ops/cluster.sh status', or 'ops/cluster.sh stop' first."
    fi
  done
  port_open "$PORT" && die "port $PORT is in use by another program: set PORT to a free port."
  for ((i = 1; i <= shards; i++)); do
    port=$((FIRST_SHARD_PORT + i - 1))
    port_open "$port" && die "shard port $port is in use by another program."
  done

  mkdir -p "$DIR"
  rm -f "$DIR"/*.pid "$DIR/api.port"

  # The local Postgres and Redis (started, or installed, when they are not running),
  # unless both URLs point elsewhere.
  if [ "$DATABASE_URL" = "$DEFAULT_DATABASE_URL" ] || [ "$REDIS_URL" = "$DEFAULT_REDIS_URL" ]; then
    bash "$ROOT/ops/ensure-services.sh"
  fi
  if [ "$DATABASE_URL" = "$DEFAULT_DATABASE_URL" ]; then
    if [ -z "$(psql -X -w -At -h 127.0.0.1 -U postgres -d postgres \
      -c "select 1 from pg_database where datname = 'guildhall'" </dev/null)" ]; then
      log "creating database guildhall"
      psql -X -w -q -h 127.0.0.1 -U postgres -d postgres -c 'create database guildhall' </dev/null
    fi
  fi

  log "applying migrations (log .tmp/cluster/migrate.log)"
  if ! "$NODE" src/platform/migrate.ts </dev/null >"$DIR/migrate.log" 2>&1; then
    show_log migrate
    die "migrations failed"
  fi

  for ((i = 1; i <= shards; i++)); do
    port=$((FIRST_SHARD_PORT + i - 1))
    start_process "shard$i" shards/main.ts -u PORT -u HOST SHARD_HOST=127.0.0.1 SHARD_PORT="$port" SHARD_ADVERTISE_HOST=127.0.0.1
  done
  for ((i = 1; i <= shards; i++)); do
    wait_until "shard$i" port_open $((FIRST_SHARD_PORT + i - 1)) || abort_start
  done
  start_process api src/main.ts HOST="$HOST" PORT="$PORT"
  echo "$PORT" >"$DIR/api.port"
  wait_until api health || abort_start

  log "up: API http://127.0.0.1:$PORT with $shards shard process(es) on ports $FIRST_SHARD_PORT..$((FIRST_SHARD_PORT + shards - 1))"
}

action=${1:-}
case $action in
  start)
    arg=${2:-2}
    cmd_start "${arg#shards=}"
    ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) usage ;;
esac
