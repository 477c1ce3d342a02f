# Sourced by the bench scripts: a scratch folder `WORK`, removed at exit with the server last
# started in it, and `start_tercio PORT`, which starts `$TERCIO serve` (this build by default) on
# a fresh database in WORK, waits until it answers, and sets `pid` (the server's) and `key` (the
# host key the server prints on its first line).
TERCIO=${TERCIO:-$PWD/target/release/tercio}
WORK=$(mktemp -d)
trap 'if [ -n "${pid:-}" ]; then kill $pid 2>/dev/null; wait $pid 2>/dev/null; fi; rm -rf "$WORK"' EXIT
start_tercio() {
  rm -f "$WORK"/t.db*
  "$TERCIO" serve --addr 127.0.0.1:$1 --db "$WORK/t.db" > "$WORK/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$1/healthz" && break; sleep 0.1; done
  key=$(grep -o 'key=[0-9a-f]*' "$WORK/log" | head -1 | cut -d= -f2)
}
