#!/usr/bin/env bash
# Load test: gunicorn (2 sync workers) on PostgreSQL and Redis, wrk on loopback, 30 s per endpoint.
#
#   bash bench/load.sh            (DURATION=10s bash bench/load.sh for a quick look)
#
# Endpoints: POST /api/validate/ (a 30-entry list), GET /s/{key}/ (the share page),
# GET /api/systems/, and GET /api/health/ as the yardstick. Prints requests/s, p50 and
# p99 latency, error counts, and each endpoint's requests/s as a share of the yardstick's.
# Targets (issue 9): every endpoint >= 30% of the yardstick's requests/s, p99 < 250 ms,
# zero errors.
#
# Then the pressure run (issue 37): the worst request a visitor can make (poker cards, then
# sheet cards, with rules and trackers, of the heaviest list a visitor can print: 150
# entries named in 200 characters of mixed scripts, a different list each time so that no
# drawing comes from the cache; the PDF limit off, as for many addresses), PRESSURE (2) at
# a time without a pause (a refused one asked again at once), while one connection asks
# /api/health/: the drawings' times, the refusals, and health's latency. PRESSURE=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-30s}"
CONNECTIONS="${CONNECTIONS:-8}"
PORT="${PORT:-8765}"
DB="${LOAD_DB:-armybuilder_load}"
PRESSURE="${PRESSURE:-2}"
HEAVY_LISTS="${HEAVY_LISTS:-24}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/$DB}"
# Redis, as in production: the workers share the cache (and the slots of large printouts).
export CACHE_URL="${CACHE_URL:-redis://127.0.0.1:6379/7}"
export DJANGO_DEBUG=false DJANGO_SECRET_KEY="load-test-$(head -c 24 /dev/urandom | base64)"
export DJANGO_ALLOWED_HOSTS=127.0.0.1 DJANGO_SECURE_SSL_REDIRECT=false
# The point is to measure the app, not the abuse limits.
export DJANGO_THROTTLE_ANON=off DJANGO_THROTTLE_USER=off DJANGO_THROTTLE_PDF=off

command -v wrk >/dev/null || { echo "Installing wrk"; apt-get install -y -qq wrk >/dev/null; }
redis-cli -u "$CACHE_URL" ping >/dev/null 2>&1 || redis-server --daemonize yes --save "" >/dev/null
redis-cli -u "$CACHE_URL" flushdb >/dev/null
pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE \"$DB\""

WORK="$(mktemp -d)"
trap 'kill "$GUNICORN" 2>/dev/null || true; rm -rf "$WORK"' EXIT
.venv/bin/python manage.py collectstatic --noinput -v0
KEY="$(.venv/bin/python bench/load_setup.py "$WORK/list.json" "$WORK/heavy.txt" "$((PRESSURE > 0 ? HEAVY_LISTS : 0))")"
cat > "$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$WORK/list.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA

.venv/bin/gunicorn armybuilder.wsgi --workers 2 --bind "127.0.0.1:$PORT" --log-level warning >> "$WORK/gunicorn.log" 2>&1 &
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

[ "$PRESSURE" -gt 0 ] || exit 0
SECONDS_LONG="${DURATION%s}"
draw_heavy() {  # the n-th of PRESSURE loops: its share of the heavy lists, each kind once
  local n="$1" end=$((SECONDS + SECONDS_LONG)) i=0 key
  mapfile -t keys < "$WORK/heavy.txt"
  for kind in "layout=poker&rules=1&trackers=1" "rules=1&trackers=1"; do
    for ((i = n; i < ${#keys[@]}; i += PRESSURE)); do
      [ "$SECONDS" -lt "$end" ] || return 0
      key="${keys[$i]}"
      while curl -s -o /dev/null -w "%{http_code} %{time_total}\n" \
        "http://127.0.0.1:$PORT/api/shared/$key/export/cards.pdf?$kind" | tee -a "$WORK/heavy-$n.txt" | grep -q "^503"; do
        [ "$SECONDS" -lt "$end" ] || return 0  # refused (the large printouts' slot is taken): again at once
      done
    done
  done
}
echo
echo "Pressure: the worst request ($HEAVY_LISTS lists of 150 entries, mixed scripts; poker and sheet cards with rules and trackers), $PRESSURE at a time for $DURATION, one connection asking /api/health/"
for n in $(seq 0 $((PRESSURE - 1))); do draw_heavy "$n" & done
sleep 0.5  # (the drawings first: health is asked while they run)
wrk -t 1 -c 1 -d "$((SECONDS_LONG - 1))s" --timeout 30s --latency "http://127.0.0.1:$PORT/api/health/" > "$WORK/pressure-health.txt"
wait $(jobs -p | grep -v "^$GUNICORN$") 2>/dev/null || true

.venv/bin/python - "$WORK" <<'PY'
import re, statistics, sys
from pathlib import Path
work = Path(sys.argv[1])
runs = [line.split() for path in work.glob("heavy-*.txt") for line in path.read_text().splitlines()]
seconds = sorted(float(t) for code, t in runs if code == "200")
refused = sorted(float(t) for code, t in runs if code == "503")
codes = sorted({code for code, _t in runs})
text = (work / "pressure-health.txt").read_text()
def ms(label):
    value, unit = re.search(rf"{label}%?\s+([\d.]+)(us|ms|s)\b", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
total = int(re.search(r"(\d+) requests in", text).group(1))
maximum = re.search(r"Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)", text).groups()
worst = float(maximum[0]) * {"us": 0.001, "ms": 1, "s": 1000}[maximum[1]]
print(f"worst requests: {len(seconds)} drawn (median {statistics.median(seconds):.2f} s, slowest {seconds[-1]:.2f} s)"
      + (f", {len(refused)} refused (slowest {refused[-1] * 1000:.0f} ms)" if refused else "")
      + f"; answers {', '.join(codes)}")
sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
errors = sum(map(int, sock.groups())) if sock else 0
print(f"/api/health/ meanwhile: {total} answers, p50 {ms('50'):.0f} ms, p99 {ms('99'):.0f} ms, slowest {worst:.0f} ms"
      f", {errors} socket errors or timeouts (30 s)")
PY