#!/usr/bin/env bash
# Brings up, on one machine, a PostgreSQL 15 cluster managed by Patroni for Colibri:
#   - etcd (one member) holding Patroni's leader key and configuration;
#   - N PostgreSQL nodes (2 or 3), each run by its own Patroni, synchronous mode on, pg_rewind on;
#   - HAProxy with a write port (the node whose Patroni answers 200 on /primary) and a read port (the
#     nodes answering 200 on /replica with less than HA_READ_MAX_LAG of lag).
# Everything lives in one folder (--dir). Run again on an existing folder, it starts whatever is not
# running (a node killed or stopped rejoins: Patroni rewinds it with pg_rewind and it becomes a replica).
# docs/operations.md ("A highly available database") explains every setting; deploy/ha/down.sh stops it.
#
#   deploy/ha/up.sh --dir /srv/colibri-ha --nodes 3 --base-port 25000
#   . /srv/colibri-ha/cluster.env; DATABASE_URL=$DATABASE_URL DATABASE_READ_URL=$DATABASE_READ_URL colibri serve
#
# Ports, from the base port P: etcd client P, etcd peer P+1, HAProxy write P+2, read P+3, statistics
# P+4; node i (1..N): PostgreSQL P+10+i, Patroni REST P+20+i.
set -euo pipefail

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  echo "options: --dir DIR (HA_DIR) --nodes N (HA_NODES, 2) --base-port P (HA_BASE_PORT, 25000)"
  echo "         --watch-pid PID (HA_WATCH_PID: run down.sh when that process ends) --timeout S (HA_UP_TIMEOUT, 90)"
}

DIR="${HA_DIR:-}"
NODES="${HA_NODES:-}"
BASE="${HA_BASE_PORT:-}"
WATCH_PID="${HA_WATCH_PID:-}"
TIMEOUT="${HA_UP_TIMEOUT:-90}"
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR="$2"; shift 2 ;;
    --nodes) NODES="$2"; shift 2 ;;
    --base-port) BASE="$2"; shift 2 ;;
    --watch-pid) WATCH_PID="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$DIR" ] || { echo "--dir is required" >&2; exit 2; }
DIR="$(realpath -m "$DIR")"

# A folder made before keeps its layout: its node count and ports are read back unless given again.
if [ -f "$DIR/cluster.env" ]; then
  # shellcheck disable=SC1091
  . "$DIR/cluster.env"
  NODES="${NODES:-$HA_NODES}"
  BASE="${BASE:-$HA_BASE_PORT}"
fi
NODES="${NODES:-2}"
BASE="${BASE:-25000}"
case "$NODES" in 2|3) ;; *) echo "--nodes must be 2 or 3" >&2; exit 2 ;; esac

PG_BIN="${HA_PG_BIN:-/usr/lib/postgresql/15/bin}"
READ_MAX_LAG="${HA_READ_MAX_LAG:-16MB}"
for tool in patroni patronictl etcd haproxy; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed (apt-get install patroni etcd-server haproxy)" >&2; exit 3; }
done
[ -x "$PG_BIN/postgres" ] || { echo "PostgreSQL 15 is not at $PG_BIN (HA_PG_BIN)" >&2; exit 3; }

ETCD_PORT=$BASE
ETCD_PEER_PORT=$((BASE + 1))
WRITE_PORT=$((BASE + 2))
READ_PORT=$((BASE + 3))
STATS_PORT=$((BASE + 4))
pg_port() { echo $((BASE + 10 + $1)); }
rest_port() { echo $((BASE + 20 + $1)); }
for port in $ETCD_PORT $ETCD_PEER_PORT $WRITE_PORT $READ_PORT $STATS_PORT $(for i in $(seq "$NODES"); do pg_port "$i"; rest_port "$i"; done); do
  if [ "$port" -eq 5432 ] || [ "$port" -eq 8080 ] || [ "$port" -gt 65535 ] || [ "$port" -lt 1024 ]; then
    echo "port $port is not allowed (5432 and 8080 are taken on this machine; 1024..65535)" >&2; exit 2
  fi
done

# PostgreSQL refuses to run as root: as root, every daemon runs as the postgres user, which owns the folder.
if [ "$(id -u)" -eq 0 ]; then
  RUN_AS=(runuser -u postgres --)
  OWNER=postgres
else
  RUN_AS=()
  OWNER="$(id -un)"
fi

mkdir -p "$DIR/log" "$DIR/secrets" "$DIR/etcd"
chmod 700 "$DIR" "$DIR/secrets"

secret() {
  local file="$DIR/secrets/$1"
  if [ ! -s "$file" ]; then
    (umask 077; head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32 >"$file")
  fi
  cat "$file"
}
SUPERUSER_PASSWORD="$(secret superuser)"
REPLICATION_PASSWORD="$(secret replication)"
REWIND_PASSWORD="$(secret rewind)"
APP_PASSWORD="$(secret colibri)"

cat >"$DIR/cluster.env" <<ENV
# Written by deploy/ha/up.sh; read back by up.sh and down.sh.
HA_NODES=$NODES
HA_BASE_PORT=$BASE
HA_ETCD_PORT=$ETCD_PORT
HA_WRITE_PORT=$WRITE_PORT
HA_READ_PORT=$READ_PORT
HA_STATS_PORT=$STATS_PORT
HA_PG_PORTS="$(for i in $(seq "$NODES"); do printf '%s ' "$(pg_port "$i")"; done)"
HA_REST_PORTS="$(for i in $(seq "$NODES"); do printf '%s ' "$(rest_port "$i")"; done)"
DATABASE_URL=postgres://colibri:$APP_PASSWORD@127.0.0.1:$WRITE_PORT/colibri
DATABASE_READ_URL=postgres://colibri:$APP_PASSWORD@127.0.0.1:$READ_PORT/colibri
HA_SUPERUSER_URL=postgres://postgres:$SUPERUSER_PASSWORD@127.0.0.1:$WRITE_PORT/postgres
ENV
chmod 600 "$DIR/cluster.env"

# Run once by Patroni on the first primary, after initdb: Colibri's own role and database.
cat >"$DIR/post-bootstrap.sh" <<SCRIPT
#!/bin/sh
set -e
"$PG_BIN/psql" "\$1" -v ON_ERROR_STOP=1 -q <<'SQL'
create role colibri login password '$APP_PASSWORD';
create database colibri owner colibri;
SQL
SCRIPT
chmod 700 "$DIR/post-bootstrap.sh"

for i in $(seq "$NODES"); do
  node="$DIR/node$i"
  mkdir -p "$node"
  chmod 700 "$node"
  cat >"$node/patroni.yml" <<YAML
# Patroni 3.0 configuration of node$i, written by deploy/ha/up.sh (docs/operations.md explains each setting).
scope: colibri
namespace: /service/
name: node$i

restapi:
  listen: 127.0.0.1:$(rest_port "$i")
  connect_address: 127.0.0.1:$(rest_port "$i")

etcd3:
  hosts: 127.0.0.1:$ETCD_PORT

bootstrap:
  # Written to etcd when the cluster is first made; the same for every node from then on
  # (patronictl edit-config changes it).
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: false
    synchronous_node_count: 1
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_connections: 200
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 256MB
        synchronous_commit: "on"
        password_encryption: scram-sha-256
        tcp_keepalives_idle: 10
        tcp_keepalives_interval: 5
        tcp_keepalives_count: 3
        hot_standby_feedback: "on"
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums
  post_bootstrap: $DIR/post-bootstrap.sh

postgresql:
  listen: 127.0.0.1:$(pg_port "$i")
  connect_address: 127.0.0.1:$(pg_port "$i")
  data_dir: $node/data
  bin_dir: $PG_BIN
  pgpass: $node/pgpass
  authentication:
    superuser:
      username: postgres
      password: $SUPERUSER_PASSWORD
    replication:
      username: replicator
      password: $REPLICATION_PASSWORD
    rewind:
      username: rewind_user
      password: $REWIND_PASSWORD
  parameters:
    unix_socket_directories: $node
  pg_hba:
    - local all all peer
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
  # A new replica is cloned at once, without waiting for the primary's next scheduled checkpoint.
  basebackup:
    - checkpoint: fast
  # A node whose rewind fails is cloned again from the primary rather than left out.
  remove_data_directory_on_rewind_failure: true

tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
YAML
  chmod 600 "$node/patroni.yml"
done

cat >"$DIR/haproxy.cfg" <<CFG
# HAProxy in front of the cluster, written by deploy/ha/up.sh (docs/operations.md explains each setting).
global
  maxconn 2000

defaults
  mode tcp
  retries 2
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s

listen stats
  mode http
  bind 127.0.0.1:$STATS_PORT
  stats enable
  stats uri /

# Writes: the one node whose Patroni holds the leader key.
listen write
  bind 127.0.0.1:$WRITE_PORT
  option httpchk OPTIONS /primary
  http-check expect status 200
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
$(for i in $(seq "$NODES"); do echo "  server node$i 127.0.0.1:$(pg_port "$i") maxconn 200 check port $(rest_port "$i")"; done)

# Reads: running replicas no further than $READ_MAX_LAG of WAL behind the primary.
listen read
  bind 127.0.0.1:$READ_PORT
  balance leastconn
  option httpchk OPTIONS /replica?lag=$READ_MAX_LAG
  http-check expect status 200
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
$(for i in $(seq "$NODES"); do echo "  server node$i 127.0.0.1:$(pg_port "$i") maxconn 200 check port $(rest_port "$i")"; done)
CFG

chown -R "$OWNER" "$DIR"

running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Starts a daemon detached from this shell, as $OWNER, with its pid in a file and its output in a log.
start() {
  local name="$1"; shift
  if running "$DIR/$name.pid"; then return 0; fi
  setsid "${RUN_AS[@]}" sh -c 'echo $$ >"$0"; exec "$@"' "$DIR/$name.pid" "$@" >>"$DIR/log/$name.log" 2>&1 </dev/null &
  for _ in $(seq 50); do [ -s "$DIR/$name.pid" ] && return 0; sleep 0.1; done
  echo "$name did not start: $DIR/log/$name.log" >&2; exit 1
}

for f in "$DIR"/*.pid; do if [ -e "$f" ] && ! running "$f"; then rm -f "$f"; fi; done

start etcd etcd --name colibri-ha --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "colibri-ha=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
  --heartbeat-interval 100 --election-timeout 1000 --auto-compaction-retention 1

deadline=$((SECONDS + TIMEOUT))
until curl -sf "http://127.0.0.1:$ETCD_PORT/health" >/dev/null; do
  [ $SECONDS -lt $deadline ] || { echo "etcd did not answer: $DIR/log/etcd.log" >&2; exit 1; }
  sleep 0.2
done

for i in $(seq "$NODES"); do
  # A postmaster left running by a Patroni that was killed is Patroni's to adopt again.
  start "node$i" patroni "$DIR/node$i/patroni.yml"
  # The first node alone makes the cluster; the others clone it once it is up.
  if [ "$i" -eq 1 ] && [ ! -s "$DIR/node1/data/PG_VERSION" ]; then
    until curl -sf "http://127.0.0.1:$(rest_port 1)/primary" >/dev/null; do
      [ $SECONDS -lt $deadline ] || { echo "node1 did not become primary: $DIR/log/node1.log" >&2; exit 1; }
      sleep 0.5
    done
  fi
done

start haproxy haproxy -db -f "$DIR/haproxy.cfg"

# Ready when HAProxy's write port reaches a primary, every node runs (leader or replica) and one replica is
# the synchronous standby.
ready() {
  local cluster
  "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$WRITE_PORT" -d colibri || return 1
  cluster="$(for i in $(seq "$NODES"); do curl -sf "http://127.0.0.1:$(rest_port "$i")/cluster" && break; done)" || return 1
  [ "$(grep -o '"state": *"\(running\|streaming\)"' <<<"$cluster" | wc -l)" -eq "$NODES" ] && grep -q '"role": *"sync_standby"' <<<"$cluster"
}
until ready; do
  [ $SECONDS -lt $deadline ] || { echo "the cluster did not become ready in ${TIMEOUT}s; see $DIR/log" >&2; patronictl -c "$DIR/node1/patroni.yml" list >&2 || true; exit 1; }
  sleep 0.5
done

if [ -n "$WATCH_PID" ] && ! running "$DIR/watch.pid"; then
  setsid sh -c 'echo $$ >"$0/watch.pid"; while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec "$2" --dir "$0"' \
    "$DIR" "$WATCH_PID" "$(dirname "$(realpath "$0")")/down.sh" >>"$DIR/log/watch.log" 2>&1 </dev/null &
fi

echo "cluster ready: write 127.0.0.1:$WRITE_PORT, read 127.0.0.1:$READ_PORT, statistics http://127.0.0.1:$STATS_PORT/"
echo "settings and URLs: $DIR/cluster.env; members: patronictl -c $DIR/node1/patroni.yml list"
