#!/usr/bin/env bash
# Bytes the server writes to storage per charge+undo move, read from /proc/PID/io
# (`write_bytes`: the WAL's frames, the checkpoints into the database file). Like
# instructions.sh it does not depend on the machine's load: it runs the server twice (GAMES
# games of MOVES1 and then MOVES2 moves each, ../shared/bench/tercio-load.js, as compare.sh
# does) and prints the difference per move, so the server's start and the games' set-up cancel
# out. Several games commit in groups and write to as many places of each index. Run from the project root
# after `cargo build --release`:
#   bench/disk.sh                          (this build)
#   TERCIO=/path/to/old/tercio bench/disk.sh   (another build, to compare)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LOAD=${LOAD:-$HERE/../../shared/bench/tercio-load.js}
GAMES=${GAMES:-20}
PORT=${PORT:-19491}
MOVES1=${MOVES1:-20}
MOVES2=${MOVES2:-120}
. "$HERE/start.sh"
total() {
  local pid key
  start_tercio $PORT
  node "$LOAD" $PORT "$GAMES" "$1" "$key" > /dev/null
  local bytes
  bytes=$(awk '/^write_bytes:/ {print $2}' /proc/$pid/io)
  kill $pid; wait $pid 2>/dev/null
  echo "$bytes"
}
a=$(total "$MOVES1")
b=$(total "$MOVES2")
echo "{\"build\":\"$TERCIO\",\"write_bytes_per_move\":$(( (b - a) / (GAMES * (MOVES2 - MOVES1)) )),\"games\":$GAMES}"
