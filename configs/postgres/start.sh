#!/bin/sh
# PostgreSQL for one sample of configs/postgres.toml: a fresh cluster in a scratch folder, started in
# the foreground of this script's process group, so that workbench's stop (SIGTERM to the group)
# ends it, and removed afterwards. Prints "ready" once pgbench's tables are loaded.
#   start.sh PORT DIR SHARED_BUFFERS MAX_CONNECTIONS SCALE
# As root, the server runs as the `postgres` user (PostgreSQL refuses root); otherwise as the caller.
set -eu
port=$1 dir=$2 shared_buffers=$3 max_connections=$4 scale=$5

bin=
for b in "${PG_BIN:-}" /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
  if [ -n "$b" ] && [ -x "$b/postgres" ]; then bin=$b; break; fi
done
[ -n "$bin" ] || { echo "start.sh: no PostgreSQL server found (apt-get install postgresql, or set PG_BIN)" >&2; exit 1; }

as=
if [ "$(id -u)" -eq 0 ]; then as="setpriv --reuid=postgres --regid=postgres --init-groups"; fi
rm -rf "$dir"
mkdir -p "$dir"
[ -z "$as" ] || chown postgres: "$dir"
# Immediate shutdown (SIGQUIT, no shutdown checkpoint) of a cluster that is thrown away: the folder
# goes first, so that it is gone even if workbench's SIGKILL follows its SIGTERM before the server
# has finished.
cleanup() {
  [ -z "${pid:-}" ] || kill -QUIT "$pid" 2>/dev/null || true
  rm -rf "$dir"
  [ -z "${pid:-}" ] || wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap 'cleanup; exit 0' TERM INT HUP
# --no-sync: the scratch cluster need not survive a crash of this machine.
$as "$bin/initdb" -D "$dir/data" -A trust -U bench -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }
# No checkpoint during a search: one spreads its writes over minutes (checkpoint_completion_target
# of the 5 min default) and slows every transaction meanwhile, so λ* would be a moving target
# (bench/real/RESULTS.txt: 1400/s read 17 ms, then 929 ms four minutes later). The cluster is
# thrown away, so its WAL may grow (max_wal_size) until the folder is removed.
$as "$bin/postgres" -D "$dir/data" -p "$port" -k "$dir" -c listen_addresses=127.0.0.1 \
  -c shared_buffers="$shared_buffers" -c max_connections="$max_connections" \
  -c checkpoint_timeout=1h -c max_wal_size=4GB >"$dir/server.log" 2>&1 &
pid=$!
i=0
until "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; do
  i=$((i + 1))
  if [ "$i" -gt 150 ] || ! kill -0 "$pid" 2>/dev/null; then
    tail -n 5 "$dir/server.log" >&2
    cleanup
    exit 1
  fi
  sleep 0.1
done
"$bin/createdb" -h 127.0.0.1 -p "$port" -U bench bench
"$bin/pgbench" -i -q -s "$scale" -h 127.0.0.1 -p "$port" -U bench bench >"$dir/init.log" 2>&1 ||
  { cat "$dir/init.log" >&2; cleanup; exit 1; }
# The loaded tables written out now, not by a checkpoint in the middle of the measurements.
"$bin/psql" -q -h 127.0.0.1 -p "$port" -U bench -c CHECKPOINT bench >>"$dir/init.log" 2>&1 ||
  { cat "$dir/init.log" >&2; cleanup; exit 1; }
echo ready
wait "$pid" || true
cleanup
