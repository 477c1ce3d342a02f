#!/usr/bin/env bash
# Scale-out: two `tercio serve` processes sharing one PostgreSQL database against one server on
# SQLite, in one run, with the shared bench's load client (../shared/bench/tercio-load.js: each
# move a charge and its undo, both committed before their answers).
#
# For each (G, M) and round: SQLite (one server, one client of G games), then PostgreSQL (two
# servers; two clients at once, G/2 games each, one per server; moves/s is their moves over the
# longer of their two runs). The PostgreSQL cluster is a throw-away one in a temporary folder
# (Debian's `postgresql`; as root its programs run as `postgres`), durable as in production
# (fsync and synchronous_commit on). CPU per move counts every process of the system: the server
# (SQLite), or both servers and every PostgreSQL process. Everything shares this machine's cores.
#
# Run from the project root after `cargo build --release`:
#   bench/scaleout.sh                       (ROUNDS=2, CONFIGS="20:200 100:100")
#   ROUNDS=1 CONFIGS="20:100" bench/scaleout.sh
#   PAGES=1 bench/scaleout.sh               (each server with a live page open throughout: a
#                                            server listens for the others' writes only then)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LOAD=${LOAD:-$HERE/../../shared/bench/tercio-load.js}
TERCIO=${TERCIO:-$PWD/target/release/tercio}
ROUNDS=${ROUNDS:-2}
CONFIGS=${CONFIGS:-"20:200 100:100"}
PORT=${BASE_PORT:-19600}
PAGES=${PAGES:-0}
export PAGES
[ -x "$TERCIO" ] || { echo "no $TERCIO: run cargo build --release first (or set TERCIO)" >&2; exit 2; }
[ -f "$LOAD" ] || { echo "no load client at $LOAD (set LOAD)" >&2; exit 2; }
BIN=$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
WORK=$(mktemp -d /tmp/tercio-scaleout.XXXXXX)
chmod 755 "$WORK"
PIDS=()
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  as_pg "$BIN/pg_ctl" -D "$WORK/pg/data" -m fast -w stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/pg" "$WORK/run"
[ "$(id -u)" = 0 ] && chown postgres: "$WORK/pg"
as_pg "$BIN/initdb" -U postgres --auth=trust -E UTF8 -D "$WORK/pg/data" >/dev/null || exit 1
as_pg "$BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" \
  -o "-k $WORK/pg -c listen_addresses= -c max_connections=100 ${PG_OPTS:-}" -w start >/dev/null || exit 1
PG="host=$WORK/pg port=5432 user=postgres"

tick() { getconf CLK_TCK; }
cpu_of() { # pids... -> ms of user+system CPU
  local t; t=$(tick)
  for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done |
    awk -v t="$t" '{ s += $14 + $15 } END { printf "%d", s * 1000 / t }'
}
pg_pids() { # the postmaster and its children
  local pm; pm=$(head -1 "$WORK/pg/data/postmaster.pid")
  echo "$pm"; awk -v pm="$pm" '$4 == pm { print $1 }' /proc/[0-9]*/stat 2>/dev/null
}
load1() { cut -d' ' -f1 /proc/loadavg; }

start() { # db-spec -> sets SPID, SKEY
  PORT=$((PORT + 1))
  TERCIO_DB="$1" "$TERCIO" serve --addr 127.0.0.1:$PORT > "$WORK/run/$PORT.log" 2>&1 &
  SPID=$!; SPORT=$PORT; PIDS+=("$SPID")
  for _ in $(seq 1 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
  SKEY=$(head -1 "$WORK/run/$PORT.log" | grep -o 'key=[0-9a-f]*' | cut -d= -f2)
}
page() { # port key -> a game made there, its game master's live stream held open (PAGES=1)
  [ "$PAGES" = 1 ] || return 0
  local tok
  tok=$(curl -s -XPOST -H "Authorization: Bearer $2" "http://127.0.0.1:$1/api/games" \
    -d '{"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}' |
    node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).links[0].url.split("/").pop())')
  curl -s -N "http://127.0.0.1:$1/api/s/$tok/events" > /dev/null &
  PIDS+=($!)
}
stop_all() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; PIDS=(); }

run_sqlite() { # games moves round
  start "$WORK/run/s$PORT.db"
  page "$SPORT" "$SKEY"
  local la c0 c1 res
  la=$(load1); c0=$(cpu_of "$SPID")
  res=$(timeout 900 node "$LOAD" "$SPORT" "$1" "$2" "$SKEY")
  c1=$(cpu_of "$SPID")
  stop_all
  echo "$res" | node -e '
    const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const [g, m, round, la, cpu] = process.argv.slice(1).map(Number);
    console.log(JSON.stringify({ backend: "sqlite", servers: 1, pages: +process.env.PAGES, games: g, moves_each: m, round, load1: la,
      moves_per_s: r.moves_per_s, p50_ms: r.p50_ms, p99_ms: r.p99_ms, cpu_ms_per_move: +(cpu / r.total).toFixed(3) }));
  ' "$1" "$2" "$3" "$la" "$((c1 - c0))"
}

run_pg() { # games moves round
  local db="t${1}_${2}_${3}"
  as_pg "$BIN/psql" -h "$WORK/pg" -U postgres -qc "CREATE DATABASE $db" >/dev/null || return 1
  start "$PG dbname=$db"; local a=$SPID ap=$SPORT key=$SKEY
  start "$PG dbname=$db"; local b=$SPID bp=$SPORT
  page "$ap" "$key"; page "$bp" "$key"
  local heard=0 want=0
  [ "$PAGES" = 1 ] && want=2
  for _ in $(seq 1 100); do # the servers listening for each other's writes, as their pages want
    heard=$(as_pg "$BIN/psql" -h "$WORK/pg" -U postgres -d "$db" -Atc \
      "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tercio-listen' AND datname = '$db'")
    [ "$heard" = "$want" ] && break
    sleep 0.1
  done
  local half=$(($1 / 2)) la c0 c1 d0 d1
  la=$(load1); c0=$(cpu_of $a $b); d0=$(cpu_of $(pg_pids))
  timeout 900 node "$LOAD" "$ap" "$half" "$2" "$key" > "$WORK/run/a.json" &
  local la_pid=$!
  timeout 900 node "$LOAD" "$bp" "$(($1 - half))" "$2" "$key" > "$WORK/run/b.json"
  wait $la_pid
  c1=$(cpu_of $a $b); d1=$(cpu_of $(pg_pids))
  local tx
  tx=$(as_pg "$BIN/psql" -h "$WORK/pg" -U postgres -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = '$db'")
  stop_all
  node -e '
    const fs = require("fs");
    const [a, b] = [process.argv[1], process.argv[2]].map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
    const [g, m, round, la, servers, db, tx, listening] = process.argv.slice(3).map(Number);
    const total = a.total + b.total, secs = Math.max(a.seconds, b.seconds), cpu = servers + db;
    console.log(JSON.stringify({ backend: "postgres", servers: 2, pages: +process.env.PAGES, games: g, moves_each: m, round, load1: la,
      moves_per_s: Math.round(total / secs), p50_ms: Math.max(a.p50_ms, b.p50_ms), p99_ms: Math.max(a.p99_ms, b.p99_ms),
      cpu_ms_per_move: +(cpu / total).toFixed(3), servers_cpu_ms_per_move: +(servers / total).toFixed(3),
      postgres_cpu_ms_per_move: +(db / total).toFixed(3), transactions_per_move: +(tx / total).toFixed(2),
      seconds_each: [a.seconds, b.seconds], servers_listening: listening }));
  ' "$WORK/run/a.json" "$WORK/run/b.json" "$1" "$2" "$3" "$la" "$((c1 - c0))" "$((d1 - d0))" "$tx" "$heard"
}

echo "two servers on PostgreSQL against one on SQLite ($(nproc) cores, load $(load1), rounds $ROUNDS, configs $CONFIGS)"
for cfg in $CONFIGS; do
  g=${cfg%%:*}; m=${cfg##*:}
  for r in $(seq 1 "$ROUNDS"); do
    s=$(run_sqlite "$g" "$m" "$r"); echo "$s"
    p=$(run_pg "$g" "$m" "$r"); echo "$p"
    node -e '
      const [s, p] = process.argv.slice(1).map((x) => JSON.parse(x));
      console.log(`G=${s.games} M=${s.moves_each} round ${s.round}: PostgreSQL (2 servers) / SQLite (1): moves/s ${(p.moves_per_s / s.moves_per_s).toFixed(2)}, p99 ${(p.p99_ms / s.p99_ms).toFixed(2)}x, CPU per move ${(p.cpu_ms_per_move / s.cpu_ms_per_move).toFixed(2)}x`);
    ' "$s" "$p"
  done
done
