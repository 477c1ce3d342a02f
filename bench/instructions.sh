#!/usr/bin/env bash
# Instructions the server executes per charge+undo move, counted by valgrind's callgrind: unlike
# time on a shared 2-core machine, the count does not depend on the machine's load, so two builds
# compare to within about 1%. Runs the server twice under callgrind (MOVES1 and MOVES2 moves of
# ../shared/bench/growth.js on one Cerignola game) and prints the difference per move, so the
# server's start and the game's set-up cancel out. Run from the project root after
# `cargo build --release`:
#   bench/instructions.sh                          (this build)
#   TERCIO=/path/to/old/tercio bench/instructions.sh   (another build, to compare)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TERCIO=${TERCIO:-$PWD/target/release/tercio}
GROWTH=${GROWTH:-$HERE/../../shared/bench/growth.js}
PORT=${PORT:-19490}
MOVES1=${MOVES1:-20}
MOVES2=${MOVES2:-120}
command -v valgrind > /dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
total() {
  rm -f "$WORK"/t.db* "$WORK"/cg.*
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" \
    "$TERCIO" serve --addr 127.0.0.1:$PORT --db "$WORK/t.db" > "$WORK/log" 2> "$WORK/vg" &
  local pid=$!
  for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
  local key
  key=$(grep -o 'key=[0-9a-f]*' "$WORK/log" | head -1 | cut -d= -f2)
  STAGES=3 VIEWS=1 MOVES=$1 node "$GROWTH" $PORT "$key" $pid > /dev/null
  kill $pid; wait $pid 2>/dev/null
  grep -h -m1 '^summary:' "$WORK"/cg.* | cut -d' ' -f2
}
a=$(total "$MOVES1")
b=$(total "$MOVES2")
echo "{\"build\":\"$TERCIO\",\"instructions_per_move\":$(( (b - a) / (MOVES2 - MOVES1) ))}"
