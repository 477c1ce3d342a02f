#!/usr/bin/env bash
# The floor under Tercio's server CPU per move, measured in one run: ../shared/bench's load
# (tercio-load.js, G games of M charge + undo moves, as compare.sh runs it) against
#   null     crates/web/examples/floor.rs doing nothing: HTTP on Tercio's stack (axum, tokio, one
#            request thread) and the harness's sockets;
#   durable  the same, appending each request to SQLite as a row of Tercio's average entry size
#            (1,462 B), WAL, synchronous = FULL, group-committed, answered after its commit;
#   tercio   this build (TERCIO=path for another);
#   bgio     boardgame.io, as compare.sh runs it (its own load.js, in memory, nothing on disk).
# For each, the server's CPU per move over the load (user and system, from /proc; its start is
# left out) and the part of it its committer thread spent. Rounds alternate the four, so they
# share the machine's load.
# Run from the project root:
#   cargo build --release && cargo build --release --example floor -p tercio-web
#   bench/floor.sh                        (ROUNDS=3 CONFIGS="20:200 100:100" by default)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LOAD=${LOAD:-$HERE/../../shared/bench/tercio-load.js}
FLOOR=${FLOOR:-$PWD/target/release/examples/floor}
ROUNDS=${ROUNDS:-3}
CONFIGS=${CONFIGS:-"20:200 100:100"}
PORT=${PORT:-19591}
BGIO=${BGIO:-/tmp/tercio-bench/bgio}
. "$HERE/start.sh"
tick=$(getconf CLK_TCK)
[ -x "$FLOOR" ] || { echo "no $FLOOR: cargo build --release --example floor -p tercio-web" >&2; exit 2; }
if [ ! -d "$BGIO/node_modules" ]; then
  rm -rf "$BGIO" && mkdir -p "$(dirname "$BGIO")" && cp -r "$HERE/../../shared/bench/bgio" "$BGIO" &&
    (cd "$BGIO" && npm install --no-audit --no-fund > /dev/null 2>&1) ||
    { echo "npm install of the boardgame.io harness failed" >&2; exit 2; }
fi

# "user_ms sys_ms commit_ms" of process $1, its thread named $2 being the committer.
cpu() {
  local u s c=0 t
  read -r u s < <(awk -v t="$tick" '{print $14*1000/t, $15*1000/t}' /proc/$1/stat)
  for t in /proc/$1/task/*; do
    [ "$(cat "$t/comm")" = "$2" ] && c=$(awk -v t="$tick" '{print ($14+$15)*1000/t}' "$t/stat")
  done
  echo "$u $s $c"
}

# One run: system name, committer thread's name, G, M, round, then the load's command; the
# server is $pid.
measure() {
  local name=$1 committer=$2 g=$3 m=$4 r=$5 out u s c u0 s0 c0
  shift 5
  kill -0 "$pid" 2>/dev/null || { echo "$name: the server did not start" >&2; exit 1; }
  read -r u0 s0 c0 < <(cpu "$pid" "$committer")
  out=$(timeout 600 "$@") || { echo "$name: the load failed: $out" >&2; exit 1; }
  read -r u s c < <(cpu "$pid" "$committer")
  u=$(awk -v a="$u" -v b="$u0" 'BEGIN{print a-b}')
  s=$(awk -v a="$s" -v b="$s0" 'BEGIN{print a-b}')
  c=$(awk -v a="$c" -v b="$c0" 'BEGIN{print a-b}')
  local mps errors
  mps=$(echo "$out" | grep -o '"moves_per_s":[0-9]*' | cut -d: -f2)
  errors=$(echo "$out" | grep -o '"errors":[0-9]*' | cut -d: -f2)
  awk -v n="$name" -v g="$g" -v m="$m" -v r="$r" -v mps="$mps" -v u="$u" -v s="$s" -v c="$c" -v e="${errors:-?}" \
    'BEGIN { mv = g * m; printf "%4d %4d %4d  %-8s %8s %9.4f %9.4f %9.4f %10.4f %6s\n", g, m, r, n, mps, u/mv, s/mv, (u+s)/mv, c/mv, e }'
  kill "$pid"; wait "$pid" 2>/dev/null
  pid=
}

start_floor() {
  rm -f "$WORK"/f.db*
  "$FLOOR" $PORT "$@" > "$WORK/flog" 2>&1 &
  pid=$!
  wait_http $PORT /healthz || { echo "floor: no answer on port $PORT" >&2; exit 1; }
}

echo "   G    M  rnd  server       mv/s   user/mv    sys/mv    cpu/mv  commit/mv errors  (ms of server CPU a move)"
for cfg in $CONFIGS; do
  g=${cfg%:*}; m=${cfg#*:}
  for r in $(seq 1 "$ROUNDS"); do
    start_floor
    measure null floor-commit "$g" "$m" "$r" node "$LOAD" $PORT "$g" "$m" x
    start_floor --durable "$WORK/f.db"
    measure durable floor-commit "$g" "$m" "$r" node "$LOAD" $PORT "$g" "$m" x
    start_tercio $PORT
    measure tercio tercio-commit "$g" "$m" "$r" node "$LOAD" $PORT "$g" "$m" "$key"
    (cd "$BGIO" && exec env PORT=$PORT node server.js > "$WORK/blog" 2>&1) &
    pid=$!
    wait_http $PORT /games || { echo "bgio: no answer on port $PORT" >&2; exit 1; }
    measure bgio none "$g" "$m" "$r" node "$BGIO/load.js" $PORT "$g" "$m"
  done
done
