#!/usr/bin/env bash
# Makes sure the services the test suite needs are up (runs as `pretest`):
#   - Postgres on 127.0.0.1:5432, user `postgres` without a password (trust auth),
#     with a database `test` (created here when missing);
#   - Redis on 127.0.0.1:6379;
#   - Chromium at /usr/bin/chromium (Debian's package `chromium`), the browser the
#     web-client test (test/http/Browser.test.ts) drives with playwright-core;
#   - Prometheus at /usr/bin/prometheus (Debian's package `prometheus`): the metrics
#     test (test/platform/Prometheus.test.ts) starts its own on a free port. The
#     package's own service (port 9090) is stopped and disabled when this script
#     installs the package.
# A service that does not answer is started when it is installed; when it is not
# installed and we are root with apt-get, it is installed first. Otherwise the script
# stops and says what is missing. It never skips silently.
# Idempotent, and quick when both already answer.
set -euo pipefail

readonly PG_HOST=127.0.0.1 PG_PORT=5432 PG_USER=postgres PG_DB=test PG_CLUSTER=main
readonly REDIS_HOST=127.0.0.1 REDIS_PORT=6379
readonly CHROMIUM=/usr/bin/chromium
readonly PROMETHEUS=/usr/bin/prometheus
readonly WAIT_SECONDS=30
readonly HBA_MARKER="# guildhall ops/ensure-services.sh: trust on loopback (local development and CI only)"

log() { echo "ensure-services: $*"; }
die() {
  echo "ensure-services: ERROR: $1" >&2
  shift
  for line in "$@"; do echo "  $line" >&2; done
  exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }
is_root() { [ "$(id -u)" = 0 ]; }
can_apt() { is_root && have apt-get; }

# A TCP connect to host:port within 2 s (bash /dev/tcp; no client tools needed).
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

pg_up() {
  if have pg_isready; then
    pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2
  else
    port_open "$PG_HOST" "$PG_PORT"
  fi
}

redis_up() {
  local reply
  if have redis-cli; then
    reply=$(timeout 3 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null </dev/null) || return 1
  else
    reply=$(timeout 3 bash -c "exec 3<>/dev/tcp/$REDIS_HOST/$REDIS_PORT && printf 'PING\r\n' >&3 && head -c 7 <&3" 2>/dev/null) || return 1
  fi
  [[ "$reply" == *PONG* ]]
}

# wait_for CHECK: polls CHECK every 0.5 s for at most WAIT_SECONDS.
wait_for() {
  local check=$1 i
  for ((i = 0; i < WAIT_SECONDS * 2; i++)); do
    if "$check"; then return 0; fi
    sleep 0.5
  done
  return 1
}

psql_admin() {
  PGCONNECT_TIMEOUT=5 psql -X -w -q -At -v ON_ERROR_STOP=1 \
    -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres "$@" </dev/null
}

# Newest Postgres major version installed the Debian way (postgresql-common), or empty.
pg_version() {
  local v=""
  if [ -d /etc/postgresql ]; then v=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1); fi
  if [ -z "$v" ] && [ -d /usr/lib/postgresql ]; then v=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -1); fi
  echo "$v"
}

pg_server_installed() { have pg_ctlcluster && [ -n "$(pg_version)" ]; }

# Prepends trust rules for loopback and the local socket to the cluster's pg_hba.conf
# (first match wins). Only for a cluster this script installs or starts itself.
pg_configure_trust() {
  local hba="/etc/postgresql/$1/$PG_CLUSTER/pg_hba.conf" tmp
  [ -f "$hba" ] || die "expected $hba after setting up Postgres $1, but it does not exist"
  if grep -qF "$HBA_MARKER" "$hba"; then return 0; fi
  log "configuring trust auth for local and loopback connections in $hba"
  tmp=$(mktemp)
  {
    echo "$HBA_MARKER"
    echo "local all all trust"
    echo "host all all 127.0.0.1/32 trust"
    echo "host all all ::1/128 trust"
    echo
    cat "$hba"
  } >"$tmp"
  cat "$tmp" >"$hba" # keeps the file's owner and mode
  rm -f "$tmp"
}

# Sets up and starts (or reloads) the newest local cluster `$PG_CLUSTER`, with trust auth when root.
pg_start() {
  local v
  v=$(pg_version)
  if ! is_root && [ "$(id -un)" != postgres ]; then
    die "Postgres $v is installed but does not answer on $PG_HOST:$PG_PORT, and only root or the postgres user can start it." \
      "Start it yourself: sudo pg_ctlcluster --skip-systemctl-redirect $v $PG_CLUSTER start"
  fi
  if [ ! -d "/etc/postgresql/$v/$PG_CLUSTER" ]; then
    have pg_createcluster || die "Postgres $v has no cluster '$PG_CLUSTER' and pg_createcluster is missing."
    log "creating Postgres cluster $v/$PG_CLUSTER"
    pg_createcluster "$v" "$PG_CLUSTER" >/dev/null
  fi
  if is_root; then pg_configure_trust "$v"; fi
  if pg_ctlcluster "$v" "$PG_CLUSTER" status >/dev/null 2>&1; then
    # Running already (a fresh package may start it itself): pick up pg_hba.conf.
    pg_ctlcluster --skip-systemctl-redirect "$v" "$PG_CLUSTER" reload >/dev/null
  else
    log "starting Postgres $v/$PG_CLUSTER"
    pg_ctlcluster --skip-systemctl-redirect "$v" "$PG_CLUSTER" start ||
      die "could not start Postgres $v/$PG_CLUSTER." "Its log is under /var/log/postgresql/."
  fi
}

redis_start() {
  local logfile="${TMPDIR:-/tmp}/guildhall-redis.log"
  log "starting redis-server on $REDIS_HOST:$REDIS_PORT (log: $logfile)"
  # `-::1` binds IPv6 loopback when available (Redis >= 7); older servers reject the
  # syntax, so fall back to IPv4 loopback alone.
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --logfile "$logfile" >/dev/null 2>&1 ||
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
      --logfile "$logfile" ||
    die "redis-server failed to start; see $logfile."
}

# --- 1. What is missing, and can we install it? ------------------------------------
pg_running=false redis_running=false
pg_up && pg_running=true
redis_up && redis_running=true

packages=() missing=()
if ! $pg_running && ! pg_server_installed; then
  packages+=(postgresql)
  missing+=("Postgres server (does not answer on $PG_HOST:$PG_PORT and is not installed): install PostgreSQL (Debian/Ubuntu: apt-get install postgresql) and run it on $PG_HOST:$PG_PORT with trust auth for user $PG_USER, or start it in a container: docker run -d -p 127.0.0.1:5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16")
elif ! have psql; then
  packages+=(postgresql-client)
  missing+=("psql (needed to create the database '$PG_DB'): install the PostgreSQL client (Debian/Ubuntu: apt-get install postgresql-client)")
fi
if ! $redis_running && ! have redis-server; then
  packages+=(redis-server)
  missing+=("Redis server (does not answer on $REDIS_HOST:$REDIS_PORT and is not installed): install it (Debian/Ubuntu: apt-get install redis-server) and run it on $REDIS_HOST:$REDIS_PORT, or start it in a container: docker run -d -p 127.0.0.1:6379:6379 redis:7")
fi

if [ ! -x "$CHROMIUM" ]; then
  packages+=(chromium)
  missing+=("Chromium at $CHROMIUM (the web-client test drives it with playwright-core): install Debian's package (apt-get install chromium)")
fi

installing_prometheus=false
if [ ! -x "$PROMETHEUS" ]; then
  packages+=(prometheus)
  installing_prometheus=true
  missing+=("Prometheus at $PROMETHEUS (the metrics test starts its own, scraping a test server): install Debian's package (apt-get install prometheus)")
fi

if ((${#packages[@]} > 0)); then
  if ! can_apt; then
    die "the tests need services that are missing, and this script installs them only as root with apt-get:" "${missing[@]}"
  fi
  log "installing ${packages[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null || die "apt-get update failed; install ${packages[*]} yourself."
  apt-get install -y -qq --no-install-recommends "${packages[@]}" </dev/null >/dev/null ||
    die "apt-get install ${packages[*]} failed; install them yourself."
fi

# --- 2. Postgres ----------------------------------------------------------------------
# Postgres not answering at first means a local cluster to start (installed above if
# need be); one that answered from the start is left as it is.
if ! $pg_running; then
  pg_server_installed ||
    die "Postgres does not answer on $PG_HOST:$PG_PORT and there is no pg_ctlcluster to start it." \
      "Start your Postgres on $PG_HOST:$PG_PORT (trust auth for user $PG_USER) and run the tests again."
  pg_start
fi
wait_for pg_up ||
  die "Postgres does not answer on $PG_HOST:$PG_PORT after ${WAIT_SECONDS}s." \
    "Check that the cluster listens on port $PG_PORT (postgresql.conf) and its log under /var/log/postgresql/."

# Trust auth is needed: the tests connect as $PG_USER without a password.
if ! err=$(psql_admin -c "select 1" 2>&1 >/dev/null); then
  die "Postgres answers on $PG_HOST:$PG_PORT but user $PG_USER cannot connect without a password:" \
    "$err" \
    "Allow trust auth for loopback in pg_hba.conf (first lines): host all all 127.0.0.1/32 trust" \
    "then reload Postgres (pg_ctlcluster <version> $PG_CLUSTER reload)."
fi
if [ -z "$(psql_admin -c "select 1 from pg_database where datname = '$PG_DB'")" ]; then
  log "creating database $PG_DB"
  # A concurrent run may create it first: only a database that is still missing is an error.
  if ! err=$(psql_admin -c "create database \"$PG_DB\"" 2>&1 >/dev/null) &&
    [ -z "$(psql_admin -c "select 1 from pg_database where datname = '$PG_DB'")" ]; then
    die "could not create database $PG_DB:" "$err"
  fi
fi

# --- 3. Redis -------------------------------------------------------------------------
if ! redis_up; then redis_start; fi
wait_for redis_up ||
  die "Redis does not answer on $REDIS_HOST:$REDIS_PORT after ${WAIT_SECONDS}s." \
    "If something else holds port $REDIS_PORT, stop it; the log of a server started here is ${TMPDIR:-/tmp}/guildhall-redis.log."

# --- 4. Chromium ----------------------------------------------------------------------
[ -x "$CHROMIUM" ] ||
  die "apt-get installed chromium, but there is no $CHROMIUM." \
    "The browser test needs Debian's chromium at exactly that path."

# --- 5. Prometheus -------------------------------------------------------------------
[ -x "$PROMETHEUS" ] ||
  die "apt-get installed prometheus, but there is no $PROMETHEUS." \
    "The metrics test needs Debian's prometheus at exactly that path."
# The package starts a service of its own on :9090 where it can; the test runs its own
# Prometheus, so one this script installed is stopped and kept from starting at boot.
if $installing_prometheus; then
  if have systemctl && systemctl is-active --quiet prometheus 2>/dev/null; then
    log "stopping and disabling the prometheus service the package started"
    systemctl stop prometheus || true
    systemctl disable --quiet prometheus 2>/dev/null || true
  elif [ -x /etc/init.d/prometheus ] && /etc/init.d/prometheus status >/dev/null 2>&1; then
    log "stopping the prometheus service the package started"
    /etc/init.d/prometheus stop >/dev/null || true
  fi
  if have update-rc.d; then update-rc.d prometheus disable >/dev/null 2>&1 || true; fi
fi

log "ok: Postgres on $PG_HOST:$PG_PORT (database $PG_DB), Redis on $REDIS_HOST:$REDIS_PORT, Chromium at $CHROMIUM, Prometheus at $PROMETHEUS"
