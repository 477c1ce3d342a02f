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
PORT=${PORT:-19492}
CHARGES=${CHARGES:-400}
. "$HERE/start.sh"
start_tercio $PORT
for lang in en it; do
  node "$HERE/answers.js" $PORT "$key" "$CHARGES" $lang || exit 1
done
