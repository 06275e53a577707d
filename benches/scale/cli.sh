#!/usr/bin/env bash
# The kubelive CLI holding N pods in object mode: time from spawn to its `synced N
# objects` line and peak RSS (/usr/bin/time -v), list-then-watch (pages of 500) or the
# streaming list, against `kubelive-sim serve --objects N --churn C --namespaces 20`.
# With KUBECTL=1 also `kubectl get pods -A -o json --chunk-size=500 > /dev/null`.
#
#   benches/scale/cli.sh N [list|streaming|both] [CHURN]
# Binaries: target/release/{kubelive,kubelive-sim} (cargo build --release -p kubelive-sim -p kubelive).
# Prints one `RESULT mode=.. pods=.. synced_s=.. max_rss_mb=..` line per run.
set -euo pipefail
N=${1:?pods}; MODES=${2:-both}; CHURN=${3:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$root/target/release}
tmp=$(mktemp -d)
sim_pid=""
cleanup() { [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
"$bin/kubelive-sim" serve --port 0 --objects "$N" --churn "$CHURN" --namespaces 20 > "$tmp/sim.out" &
sim_pid=$!
until grep -q listening "$tmp/sim.out" 2>/dev/null; do sleep 0.05; done
url=$(sed -n 's/.*listening on //p' "$tmp/sim.out")
t0=$(date +%s.%N)
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/namespaces?limit=1")" = 200 ]; do sleep 0.1; done
echo "sim ready in $(echo "$(date +%s.%N) - $t0" | bc) s" >&2
[ "$MODES" = both ] && MODES="list streaming"
for mode in $MODES; do
  flags=(watch pods -A --server "$url" --server-print=false --page-size 500 --duration 3600)
  [ "$mode" = streaming ] && flags+=(--streaming-list)
  start=$(date +%s.%N)
  sim_cpu0=$(awk '{print $14 + $15}' /proc/$sim_pid/stat)
  /usr/bin/time -v -o "$tmp/time.txt" "$bin/kubelive" "${flags[@]}" > /dev/null 2> "$tmp/err.txt" &
  tpid=$!
  until grep -q '] synced ' "$tmp/err.txt" 2>/dev/null; do
    kill -0 $tpid 2>/dev/null || { cat "$tmp/err.txt" >&2; exit 1; }
    sleep 0.05
  done
  synced=$(echo "$(date +%s.%N) - $start" | bc)
  sim_cpu=$(( $(awk '{print $14 + $15}' /proc/$sim_pid/stat) - sim_cpu0 ))
  kill -TERM "$(pgrep -P $tpid)" 2>/dev/null || true
  wait $tpid || true
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/time.txt")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u + s}' "$tmp/time.txt")
  # CPU seconds: the client's until it was stopped (just after synced), the sim's until synced.
  echo "RESULT mode=$mode pods=$N synced_s=$synced max_rss_mb=$((rss / 1024)) client_cpu_s=$cpu sim_cpu_s=$(echo "scale=2; $sim_cpu / $(getconf CLK_TCK)" | bc) line=\"$(grep '] synced ' "$tmp/err.txt")\""
done
if [ "${KUBECTL:-0}" = 1 ]; then
  printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: %s\ncontexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\ncurrent-context: sim\nusers:\n- name: sim\n  user: {}\n' "$url" > "$tmp/kubeconfig"
  start=$(date +%s.%N)
  if /usr/bin/time -v -o "$tmp/time.txt" timeout "${KUBECTL_TIMEOUT:-900}" kubectl --kubeconfig "$tmp/kubeconfig" --cache-dir "$tmp/cache" get pods -A -o json --chunk-size=500 --request-timeout 0 > /dev/null 2> "$tmp/kerr.txt"; then
    status=ok
  else
    status="failed($(tail -c 200 "$tmp/kerr.txt" | tr '\n' ' '))"
  fi
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/time.txt")
  echo "RESULT mode=kubectl-get-json pods=$N secs=$secs max_rss_mb=$((${rss:-0} / 1024)) status=$status"
fi
