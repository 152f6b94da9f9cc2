#!/usr/bin/env bash
# Backup, verify and restore figures for docs/operations.md "Backups" (`make bench-backup`).
#
# For each database (SQLite, PostgreSQL) and each market (the demo market `make run` seeds; BENCH_HOMES homes from
# `valuator demo --homes N`), a development `valuator serve` of the built binary seeds an empty database (the demo
# account, its history and the residents; the market itself first for BENCH_HOMES), trains and saves the engine and
# says it is running; then, while it runs:
#   valuator backup FILE          (timed; FILE's size)
#   valuator backup verify FILE   (timed)
# and, the server stopped, `valuator restore FILE` into an empty database (timed).
#
# PostgreSQL is BENCH_PG_URL (a server where this user may create databases, e.g.
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), else a throwaway cluster made with initdb and
# pg_ctl from PATH or /usr/lib/postgresql/*/bin under BENCH_DIR (default settings: fsync on), removed at the end.
# BENCH_DBS=sqlite or BENCH_DBS=postgres runs one. Training 100,000 homes takes 3 to 5 minutes a database on 2
# shared cores (about 11 minutes in all): on a shared machine run it under nice.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/backup-bench}
BENCH_HOMES=${BENCH_HOMES:-100000}
BENCH_DBS=${BENCH_DBS:-sqlite postgres}
BIN=${BIN:-$PWD/bin/valuator-backupbench}
GO=${GO:-go}

rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR" "$(dirname "$BIN")"
"$GO" build -trimpath -o "$BIN" ./cmd/valuator

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
mib() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1048576 }'; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

PG_CTL= PG_DATA= SERVE_PID=
cleanup() {
	if [ -n "$SERVE_PID" ]; then kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
	if [ -n "$PG_CTL" ]; then as_pg "$PG_CTL" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true; fi
	rm -rf "$BENCH_DIR"
}
trap cleanup EXIT

as_pg() { # initdb and pg_ctl refuse to run as root
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_admin=
start_postgres() {
	if [ -n "${BENCH_PG_URL:-}" ]; then pg_admin=$BENCH_PG_URL; return; fi
	local bin
	command -v psql >/dev/null || PATH=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1):$PATH
	bin=$(command -v pg_ctl >/dev/null && dirname "$(command -v pg_ctl)" || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
	PG_CTL=$bin/pg_ctl PG_DATA=$BENCH_DIR/pg/data
	mkdir -p "$BENCH_DIR/pg/sock"
	[ "$(id -u)" = 0 ] && chown -R postgres "$BENCH_DIR/pg"
	as_pg "$bin/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --no-locale >/dev/null
	local port
	port=$(free_port)
	as_pg "$PG_CTL" -D "$PG_DATA" -o "-p $port -k $BENCH_DIR/pg/sock -c listen_addresses=127.0.0.1" -w -l "$BENCH_DIR/pg/log" start >/dev/null
	pg_admin="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	echo "PostgreSQL: $("$bin/postgres" --version), throwaway cluster on port $port" >&2
}
psql_admin() { psql -X -q -t -A -v ON_ERROR_STOP=1 -d "$pg_admin" -c "$1"; }
pg_db_url() { echo "${pg_admin/\/postgres\?//$1?}"; }

# serve_until_running DBURL LOG: a development serve with the demo on, until it says it is running.
serve_until_running() {
	local url=$1 log=$2 data=$BENCH_DIR/data-$RANDOM
	mkdir -p "$data"
	VALUATOR_ENV=development VALUATOR_DEMO=true VALUATOR_DATABASE_URL=$url VALUATOR_DATA_DIR=$data \
		VALUATOR_ADDR=127.0.0.1:$(free_port) VALUATOR_LOG_LEVEL=warn "$BIN" serve >"$log" 2>&1 &
	SERVE_PID=$!
	local waited=0
	until grep -q "Valuator is running at" "$log" 2>/dev/null; do
		if ! kill -0 "$SERVE_PID" 2>/dev/null || [ $waited -gt 1800 ]; then
			echo "serve did not start:" >&2; tail -20 "$log" >&2; exit 1
		fi
		sleep 1; waited=$((waited + 1))
	done
}
stop_serve() { kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; SERVE_PID=; }

# bench DB MARKET: one row of the table.
bench() {
	local db=$1 market=$2 dir=$BENCH_DIR/$1-$2 url target size
	mkdir -p "$dir"
	if [ "$db" = sqlite ]; then
		url=sqlite://$dir/valuator.db target=sqlite://$dir/restored/valuator.db
	else
		psql_admin "CREATE DATABASE bench_${market}"
		psql_admin "CREATE DATABASE restored_${market}"
		url=$(pg_db_url "bench_${market}") target=$(pg_db_url "restored_${market}")
	fi
	local t0 t1 homes=demo
	t0=$(now)
	if [ "$market" != demo ]; then
		VALUATOR_ENV=development VALUATOR_DATABASE_URL=$url VALUATOR_DATA_DIR=$dir "$BIN" demo --homes "$market" >"$dir/demo.log" 2>&1
		homes=$market
	fi
	serve_until_running "$url" "$dir/serve.log"
	local ready
	ready=$(secs "$t0" "$(now)")
	if [ "$db" = sqlite ]; then
		size=$(( $(stat -c %s "$dir/valuator.db") + $(stat -c %s "$dir/valuator.db-wal" 2>/dev/null || echo 0) ))
	else
		size=$(psql_admin "SELECT pg_database_size('bench_${market}')")
	fi

	t0=$(now); "$BIN" backup "$dir/backup" --database-url "$url" >"$dir/backup.log"; t1=$(now)
	local backup file_size
	backup=$(secs "$t0" "$t1")
	file_size=$(stat -c %s "$dir/backup")
	t0=$(now); "$BIN" backup verify "$dir/backup" --database-url "${pg_admin:-$url}" >"$dir/verify.log"; t1=$(now)
	local verify
	verify=$(secs "$t0" "$t1")
	local ledger
	ledger=$(grep -o '[0-9]* ledger rows' "$dir/backup.log" | head -1)
	stop_serve
	t0=$(now); "$BIN" restore "$dir/backup" --database-url "$target" >"$dir/restore.log"; t1=$(now)
	local restore
	restore=$(secs "$t0" "$t1")
	printf '| %s | %s | %s MiB | %s s | %s MiB | %s s | %s s | (%s; seeded and trained to running in %s s)\n' \
		"$db" "$homes" "$(mib "$size")" "$backup" "$(mib "$file_size")" "$verify" "$restore" "$ledger" "$ready"
}

echo "| database | homes | database size | backup | file | verify | restore |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for db in $BENCH_DBS; do
	[ "$db" = postgres ] && start_postgres
	for market in demo "$BENCH_HOMES"; do
		bench "$db" "$market"
	done
done
