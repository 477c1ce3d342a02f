#!/usr/bin/env bash
# The bytes of a charge's answer (raw JSON, before compression) over CHARGES charges of
# Cerignola, in English and in Italian: smallest, median, mean, largest, how many exceed 2 KB,
# and the same by the number of steps the resolution took (a third step: the losing unit's
# leader at risk). Like disk.sh, the figures do not depend on the machine's load. Run from the
# project root after `cargo build --release`:
#   bench/answers.sh                        (this build, CHARGES=400)
#   TERCIO=/path/to/old/tercio bench/answers.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TERCIO=${TERCIO:-$PWD/target/release/tercio}
PORT=${PORT:-19492}
CHARGES=${CHARGES:-400}
WORK=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$WORK"' EXIT
"$TERCIO" serve --addr 127.0.0.1:$PORT --db "$WORK/t.db" > "$WORK/log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
key=$(grep -o 'key=[0-9a-f]*' "$WORK/log" | head -1 | cut -d= -f2)
for lang in en it; do
  node "$HERE/answers.js" $PORT "$key" "$CHARGES" $lang || exit 1
done
