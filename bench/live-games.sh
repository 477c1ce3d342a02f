#!/usr/bin/env bash
# Memory of live games, and what making them costs: start `tercio serve` on a fresh database,
# make GAMES games one after another (Cerignola), take the three setup actions and a charge on
# each (each action on every game in turn), open each game master's view once so every game is
# in the server's memory, and print the server's RSS before and after, and its CPU per game made
# and per action of each kind. Run from the project root after `cargo build --release`:
#   bench/live-games.sh                              (GAMES=1000)
#   TERCIO=/path/to/old/tercio bench/live-games.sh   (another build; alternate them to compare CPU)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GAMES=${GAMES:-1000}
PORT=${PORT:-19480}
. "$HERE/start.sh"
start_tercio $PORT
TCK=$(getconf CLK_TCK) node "$HERE/live-games.js" "$PORT" "$key" "$pid" "$GAMES"
