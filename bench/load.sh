#!/usr/bin/env bash
# Load test: gunicorn (2 sync workers) on PostgreSQL, wrk on loopback, 30 s per endpoint.
#
#   bash bench/load.sh            (DURATION=10s bash bench/load.sh for a quick look)
#
# Endpoints: POST /api/validate/ (a 30-entry list), GET /s/{key}/ (the share page),
# GET /api/systems/, and GET /api/health/ as the yardstick. Prints requests/s, p50 and
# p99 latency, error counts, and each endpoint's requests/s as a share of the yardstick's.
# Targets (issue 9): every endpoint >= 30% of the yardstick's requests/s, p99 < 250 ms,
# zero errors.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-30s}"
CONNECTIONS="${CONNECTIONS:-8}"
PORT="${PORT:-8765}"
DB="${LOAD_DB:-armybuilder_load}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/$DB}"
export DJANGO_DEBUG=false DJANGO_SECRET_KEY="load-test-$(head -c 24 /dev/urandom | base64)"
export DJANGO_ALLOWED_HOSTS=127.0.0.1 DJANGO_SECURE_SSL_REDIRECT=false
# The point is to measure the app, not the abuse limits.
export DJANGO_THROTTLE_ANON=off DJANGO_THROTTLE_USER=off

command -v wrk >/dev/null || { echo "Installing wrk"; apt-get install -y -qq wrk >/dev/null; }
pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE \"$DB\""

WORK="$(mktemp -d)"
trap 'kill "$GUNICORN" 2>/dev/null || true; rm -rf "$WORK"' EXIT
.venv/bin/python manage.py collectstatic --noinput -v0
KEY="$(.venv/bin/python bench/load_setup.py "$WORK/list.json")"
cat > "$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$WORK/list.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA

.venv/bin/gunicorn armybuilder.wsgi --workers 2 --bind "127.0.0.1:$PORT" --log-level warning &
GUNICORN=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/api/health/" >/dev/null && break; sleep 0.2; done

run() {  # name, path, [lua script]
  local name="$1" path="$2" script="${3:-}"
  local args=(-t 2 -c "$CONNECTIONS" -d "$DURATION" --latency)
  [ -n "$script" ] && args+=(-s "$script")
  wrk "${args[@]}" "http://127.0.0.1:$PORT$path" > "$WORK/$name.txt"
  echo "$name $path" >> "$WORK/runs"
}

echo "wrk: $CONNECTIONS connections, $DURATION per endpoint, gunicorn 2 workers, $(nproc) cores, PostgreSQL"
run health /api/health/
run validate /api/validate/ "$WORK/post.lua"
run shared "/s/$KEY/"
run systems /api/systems/

.venv/bin/python - "$WORK" <<'PY'
import re, sys
from pathlib import Path
work = Path(sys.argv[1])

def parse(text):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    def ms(label):
        value, unit = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)\b", text).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(map(int, sock.groups())) if sock else 0)
    total = int(re.search(r"(\d+) requests in", text).group(1))
    return rps, ms("50"), ms("99"), errors, total

rows = []
for line in (work / "runs").read_text().split("\n"):
    if line:
        name, path = line.split(" ", 1)
        rows.append((name, path, *parse((work / f"{name}.txt").read_text())))
base = rows[0][2]
print(f"{'endpoint':<42} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'requests':>9} {'vs health':>9}")
ok = True
for name, path, rps, p50, p99, errors, total in rows:
    share = rps / base
    print(f"{path[:42]:<42} {rps:>8.0f} {p50:>8.1f} {p99:>8.1f} {errors:>7} {total:>9} {share:>8.0%}")
    if name != "health":
        ok &= share >= 0.30 and p99 < 250 and errors == 0
print("targets met (>= 30% of health req/s, p99 < 250 ms, no errors)" if ok else "TARGETS NOT MET")
PY
