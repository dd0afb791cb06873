#!/usr/bin/env bash
# API fuzzing: Schemathesis with every check and a random seed, against the site served by
# gunicorn on PostgreSQL, as an ordinary signed-in user (an API token), for 5 minutes.
#
#   bash bench/fuzz.sh                      (MAX_TIME=60 bash bench/fuzz.sh for a quick look)
#   SEED=1234 bash bench/fuzz.sh            (the same run again: the seed is printed first)
#
# Exits non-zero if any check fails. The JUnit report, a pytest file that reproduces each
# failure and the server's log are written to $FUZZ_OUT (default /tmp/armybuilder-fuzz).
# Checks are configured in bench/schemathesis.toml, the token in bench/fuzz_hooks.py,
# the users, a shared list and an event pack in bench/fuzz_setup.py.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-8765}"
DB="${FUZZ_DB:-ab_fuzz}"
MAX_TIME="${MAX_TIME:-300}"
SEED="${SEED:-$((RANDOM * 32768 + RANDOM))}"
export FUZZ_OUT="${FUZZ_OUT:-/tmp/armybuilder-fuzz}"
export FUZZ_CACHE_DIR="$FUZZ_OUT/cache"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/$DB}"
export DJANGO_DEBUG=false DJANGO_SECRET_KEY="fuzz-$(head -c 24 /dev/urandom | base64)"
export DJANGO_ALLOWED_HOSTS=127.0.0.1 DJANGO_SECURE_SSL_REDIRECT=false
# Share links are read from Army Forge: a closed port on loopback here (nothing leaves the machine).
export DJANGO_ARMYFORGE_URL=http://127.0.0.1:9
# Thousands of requests a minute, and of wrong passwords, from one address: the abuse
# limits (documented as 429, and tested in tests/) would answer most of them and leave
# little to fuzz, and would lock the fuzzing user out.
export DJANGO_THROTTLE_ANON=off DJANGO_THROTTLE_USER=off DJANGO_THROTTLE_AUTH=off DJANGO_THROTTLE_VISITOR_LISTS=off
export DJANGO_LOGIN_FAILURES=1000000000
export FUZZ_USER=fuzzer FUZZ_PASSWORD="fuzz-$(head -c 18 /dev/urandom | base64)"
export SCHEMATHESIS_HOOKS=bench/fuzz_hooks.py

mkdir -p "$FUZZ_OUT"
pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE \"$DB\""
# The user the fuzzer signs in as, someone else's list it reads by its share key, and the
# event pack it organises.
KEYS="$(.venv/bin/python bench/fuzz_setup.py)"
read -r FUZZ_SHARE_KEY FUZZ_EVENT_KEY <<<"$KEYS"
export FUZZ_SHARE_KEY FUZZ_EVENT_KEY

# gunicorn's own limits on the request line and headers answer in HTML before Django sees
# the request; lifted here, so that what is fuzzed is the application.
.venv/bin/gunicorn armybuilder.wsgi --workers 2 --bind "127.0.0.1:$PORT" \
  --limit-request-line 0 --limit-request-field_size 0 --log-level warning >"$FUZZ_OUT/server.log" 2>&1 &
GUNICORN=$!
trap 'kill "$GUNICORN" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/api/health/" >/dev/null && break; sleep 0.2; done

echo "Schemathesis: every check, seed $SEED, $MAX_TIME s, as the ordinary user $FUZZ_USER"
# One worker: the run signs in as one user, and two workers sharing that user's event packs
# can delete a pack the other's scenario has just made, which Schemathesis then reports as
# "created resource not found" (seen once with two workers; the same seed passes with one).
.venv/bin/st --config-file bench/schemathesis.toml run "http://127.0.0.1:$PORT/api/schema/?format=json" \
  --checks all --seed "$SEED" --max-time "$MAX_TIME" --workers 1 \
  --report junit,pytest --report-dir "$FUZZ_OUT" "$@"
