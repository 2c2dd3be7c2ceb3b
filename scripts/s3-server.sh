#!/usr/bin/env bash
# Starts an S3-compatible server on loopback for the tests: OpenStack Swift from Debian's
# packages (swift-proxy swift-account swift-container swift-object; this script installs
# nothing) with its S3 API (the s3api middleware) and tempauth's test account.
#
#   scripts/s3-server.sh          start (a server already answering is left as it is)
#   scripts/s3-server.sh stop     stop the servers this script started
#   scripts/s3-server.sh env      print the settings the tests read, as shell exports
#
# Everything it writes lives under FOLIO_S3_SERVER_DIR (default /srv/folio-s3): the
# configuration, the rings, the data and the logs. Swift itself reads /etc/swift/swift.conf
# (the hash path salt), which Debian's package installs; it is written only when missing.
# One replica, one device, no background replicators or auditors: a test server, not a
# store for data anyone keeps.
set -euo pipefail

DIR=${FOLIO_S3_SERVER_DIR:-/srv/folio-s3}
HOST=127.0.0.1
PORT=${FOLIO_S3_SERVER_PORT:-18480}
# The storage servers listen on the three ports after the proxy's.
ACCOUNT_PORT=$((PORT + 1))
CONTAINER_PORT=$((PORT + 2))
OBJECT_PORT=$((PORT + 3))
# tempauth's account "test", user "tester": the S3 access key is account:user.
ACCESS_KEY='test:tester'
SECRET_KEY='testing'
REGION='us-east-1'
ENDPOINT="http://$HOST:$PORT"
SERVERS=(account container object proxy)

print_env() {
  echo "export FOLIO_TEST_S3_ENDPOINT=$ENDPOINT"
  echo "export FOLIO_TEST_S3_REGION=$REGION"
  echo "export FOLIO_TEST_S3_ACCESS_KEY_ID=$ACCESS_KEY"
  echo "export FOLIO_TEST_S3_SECRET_ACCESS_KEY=$SECRET_KEY"
}

healthy() {
  curl -fsS --max-time 2 "$ENDPOINT/healthcheck" >/dev/null 2>&1
}

stop_servers() {
  for server in "${SERVERS[@]}"; do
    local pidfile="$DIR/run/$server.pid"
    [ -f "$pidfile" ] || continue
    local pid
    pid=$(cat "$pidfile")
    # Only a process still running this server's own configuration is ours to stop.
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$DIR/etc/"; then
      kill "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

case "${1:-start}" in
  env)
    print_env
    exit 0
    ;;
  stop)
    stop_servers
    exit 0
    ;;
  start) ;;
  *)
    echo "usage: $0 [start|stop|env]" >&2
    exit 2
    ;;
esac

if healthy; then
  echo "S3 test server already running at $ENDPOINT" >&2
  exit 0
fi

for server in "${SERVERS[@]}"; do
  if ! command -v "swift-$server-server" >/dev/null 2>&1; then
    echo "swift-$server-server not found: install Debian's swift-proxy swift-account" \
      "swift-container swift-object packages" >&2
    exit 1
  fi
done
command -v swift-ring-builder >/dev/null 2>&1 || { echo 'swift-ring-builder not found' >&2; exit 1; }

# Swift drops to this user after binding; root can hand the data folder to the swift user.
if [ "$(id -u)" = 0 ] && id swift >/dev/null 2>&1; then
  RUN_USER=swift
else
  RUN_USER=$(id -un)
fi

# Leftovers of an earlier start that is no longer answering.
stop_servers

mkdir -p "$DIR/etc" "$DIR/node/d1" "$DIR/run" "$DIR/log" "$DIR/cache"
chown -R "$RUN_USER:" "$DIR/node" "$DIR/cache" 2>/dev/null || true

if [ ! -f /etc/swift/swift.conf ]; then
  mkdir -p /etc/swift
  cat >/etc/swift/swift.conf <<EOF
[swift-hash]
swift_hash_path_suffix = folio-test-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
swift_hash_path_prefix = folio-test

[storage-policy:0]
name = Policy-0
default = yes
EOF
fi

common() {
  cat <<EOF
[DEFAULT]
bind_ip = $HOST
bind_port = $1
user = $RUN_USER
swift_dir = $DIR/etc
devices = $DIR/node
mount_check = false
workers = 1
log_level = WARNING
recon_cache_path = $DIR/cache
EOF
}

{
  common "$ACCOUNT_PORT"
  printf '\n[pipeline:main]\npipeline = account-server\n\n[app:account-server]\nuse = egg:swift#account\n'
} >"$DIR/etc/account-server.conf"
{
  common "$CONTAINER_PORT"
  printf '\n[pipeline:main]\npipeline = container-server\n\n[app:container-server]\nuse = egg:swift#container\n'
} >"$DIR/etc/container-server.conf"
{
  common "$OBJECT_PORT"
  printf '\n[pipeline:main]\npipeline = object-server\n\n[app:object-server]\nuse = egg:swift#object\n'
} >"$DIR/etc/object-server.conf"

# s3api sits before the auth middleware and needs slo for multipart uploads; tempauth keeps
# its tokens in memcache, which is absent here: S3 requests carry a signature on every call
# and never need a stored token, so the failed cache lookups only cost a refused connect.
{
  common "$PORT"
  cat <<EOF

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = $REGION

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = $SECRET_KEY .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = $HOST:$((PORT + 4))

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
EOF
} >"$DIR/etc/proxy-server.conf"

# One device, one replica, 2^8 partitions, per ring; built only once.
for ring in account container object; do
  builder="$DIR/etc/$ring.builder"
  [ -f "$DIR/etc/$ring.ring.gz" ] && continue
  rm -f "$builder"
  case $ring in
    account) ring_port=$ACCOUNT_PORT ;;
    container) ring_port=$CONTAINER_PORT ;;
    object) ring_port=$OBJECT_PORT ;;
  esac
  swift-ring-builder "$builder" create 8 1 1 >/dev/null
  swift-ring-builder "$builder" add "r1z1-$HOST:$ring_port/d1" 100 >/dev/null
  swift-ring-builder "$builder" rebalance >/dev/null
done

for server in "${SERVERS[@]}"; do
  setsid nohup "swift-$server-server" "$DIR/etc/$server-server.conf" \
    >>"$DIR/log/$server.log" 2>&1 </dev/null &
  echo $! >"$DIR/run/$server.pid"
done

for _ in $(seq 1 100); do
  if healthy; then
    echo "S3 test server running at $ENDPOINT (logs in $DIR/log)" >&2
    exit 0
  fi
  sleep 0.1
done
echo "S3 test server did not answer at $ENDPOINT; see $DIR/log" >&2
tail -n 20 "$DIR"/log/*.log >&2 || true
exit 1
