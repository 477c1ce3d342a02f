# Sourced by the bench scripts. `start_tercio PORT DIR` starts `$TERCIO serve` on a fresh database
# in DIR, waits until it answers, and sets `pid` (the server's) and `key` (the host key the server
# prints on its first line).
start_tercio() {
  rm -f "$2"/t.db*
  "$TERCIO" serve --addr 127.0.0.1:$1 --db "$2/t.db" > "$2/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$1/healthz" && break; sleep 0.1; done
  key=$(grep -o 'key=[0-9a-f]*' "$2/log" | head -1 | cut -d= -f2)
}
