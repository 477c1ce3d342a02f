#!/usr/bin/env bash
# Server CPU for making games: start `tercio serve` on a fresh database, make GAMES Cerignola
# games one after another (POST /api/games, as compare.sh's load client does before its timed
# part), then take each game's three set-up actions, and print the server's CPU per game made and
# per action of each kind. Run it twice, alternating builds, to compare them (CPU time on these
# shared machines is noisy; compare within one run). Run from the project root after
# `cargo build --release`:
#   bench/making.sh                              (GAMES=300)
#   TERCIO=/path/to/old/tercio bench/making.sh   (another build)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TERCIO=${TERCIO:-$PWD/target/release/tercio}
GAMES=${GAMES:-300}
PORT=${PORT:-19470}
WORK=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$WORK"' EXIT
"$TERCIO" serve --addr 127.0.0.1:$PORT --db "$WORK/t.db" > "$WORK/log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
key=$(head -1 "$WORK/log" | grep -o 'key=[0-9a-f]*' | cut -d= -f2)
TCK=$(getconf CLK_TCK) node "$HERE/making.js" "$PORT" "$key" "$pid" "$GAMES"
