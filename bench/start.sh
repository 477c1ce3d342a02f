# Sourced by the bench scripts: a scratch folder `WORK`, removed at exit with the server last
# started in it, and `start_tercio PORT`, which starts `$TERCIO serve` (this build by default) on
# a fresh database in WORK, waits until it answers, and sets `pid` (the server's) and `key` (the
# host key the server prints on its first line); and `wait_http PORT PATH`, which it uses.
TERCIO=${TERCIO:-$PWD/target/release/tercio}
WORK=$(mktemp -d)
trap 'if [ -n "${pid:-}" ]; then kill $pid 2>/dev/null; wait $pid 2>/dev/null; fi; rm -rf "$WORK"' EXIT
# Wait up to a minute for a server on port $1 to answer GET $2; fails if none does.
wait_http() {
  for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$1$2" && return 0; sleep 0.1; done
  return 1
}
start_tercio() {
  rm -f "$WORK"/t.db*
  "$TERCIO" serve --addr 127.0.0.1:$1 --db "$WORK/t.db" > "$WORK/log" 2>&1 &
  pid=$!
  wait_http $1 /healthz
  key=$(grep -o 'key=[0-9a-f]*' "$WORK/log" | head -1 | cut -d= -f2)
}
