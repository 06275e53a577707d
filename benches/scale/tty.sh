#!/bin/bash
# The CLI's live table on a terminal (`-o table` on a pty of 50 rows, made by `script`):
# bytes written, redraws and CPU in 30 s at N pods (100000) and 100 changes/s, for one
# or two CLI builds taking turns, twice. BENCHMARKS.md, "The CLI's live table on a
# terminal".
#   benches/scale/tty.sh SIM_BIN CLI_BIN [CLI_BIN_BEFORE] [N]
set -eu
SIM=$1; AFTER=$2; BEFORE=${3:-}; N=${4:-100000}; PORT=18611
"$SIM" serve --port $PORT --objects "$N" --churn 100 --namespaces 20 > /dev/null 2>&1 &
SIMPID=$!
trap 'kill $SIMPID' EXIT
until curl -sf "http://127.0.0.1:$PORT/api/v1/pods?limit=1" > /dev/null; do sleep 0.5; done
TMP=$(mktemp -d)
for round in 1 2; do
  for which in before after; do
    if [ $which = before ]; then BIN=$BEFORE; else BIN=$AFTER; fi
    [ -n "$BIN" ] || continue
    /usr/bin/time -f "%U user %S sys %M KB" -o "$TMP/time" script -q -f -c \
      "stty rows 50 cols 200; $BIN watch pods -A --server http://127.0.0.1:$PORT -o table --duration 30" \
      "$TMP/typescript" > /dev/null 2>&1
    echo "round $round $which: $(stat -c %s "$TMP/typescript") bytes, $(grep -c $'\x1b\[2J' "$TMP/typescript") redraws, $(cat "$TMP/time")"
  done
done
rm -rf "$TMP"
