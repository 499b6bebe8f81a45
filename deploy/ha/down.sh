#!/usr/bin/env bash
# Stops what deploy/ha/up.sh started in a folder: HAProxy, every node's Patroni (which stops its
# PostgreSQL), then etcd. A postmaster whose Patroni was killed is stopped too.
#   deploy/ha/down.sh --dir /srv/colibri-ha            # keeps the data: up.sh starts it again
#   deploy/ha/down.sh --dir /tmp/colibri-ha --purge    # and removes the folder
set -uo pipefail

DIR="${HA_DIR:-}"
PURGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR="$2"; shift 2 ;;
    --purge) PURGE=1; shift ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$DIR" ] || { echo "--dir is required" >&2; exit 2; }
[ -d "$DIR" ] || exit 0
PG_BIN="${HA_PG_BIN:-/usr/lib/postgresql/15/bin}"

pid_of() { [ -s "$1" ] && cat "$1"; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
# Waits up to $1 tenths of a second for every pid given to end.
wait_gone() {
  local tenths="$1"; shift
  for _ in $(seq "$tenths"); do
    local left=0
    for p in "$@"; do alive "$p" && left=1; done
    [ $left -eq 0 ] && return 0
    sleep 0.1
  done
  return 1
}

# The watcher first, so it does not run this script a second time.
watcher="$(pid_of "$DIR/watch.pid")"
[ -n "$watcher" ] && [ "$watcher" != "$$" ] && kill "$watcher" 2>/dev/null

haproxy="$(pid_of "$DIR/haproxy.pid")"
alive "$haproxy" && kill "$haproxy"

patronis=()
for f in "$DIR"/node*.pid; do
  p="$(pid_of "$f")"
  alive "$p" && { kill "$p"; patronis+=("$p"); }
done
# Patroni stops PostgreSQL (fast shutdown) before it exits.
wait_gone 300 "${patronis[@]}" || kill -9 "${patronis[@]}" 2>/dev/null

# Postmasters with no Patroni left (killed, or not stopped in time): immediate stop.
postmasters=()
for pidfile in "$DIR"/node*/data/postmaster.pid; do
  [ -s "$pidfile" ] || continue
  p="$(head -1 "$pidfile")"
  if alive "$p" && [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$PG_BIN/postgres" ]; then
    kill -QUIT "$p"; postmasters+=("$p")
  fi
done
wait_gone 100 "${postmasters[@]}" || kill -9 "${postmasters[@]}" 2>/dev/null

etcd="$(pid_of "$DIR/etcd.pid")"
if alive "$etcd"; then kill "$etcd"; wait_gone 50 "$etcd" || kill -9 "$etcd"; fi
wait_gone 50 "$haproxy" || kill -9 "$haproxy" 2>/dev/null
rm -f "$DIR"/*.pid
[ $PURGE -eq 1 ] && rm -rf "$DIR"
exit 0
