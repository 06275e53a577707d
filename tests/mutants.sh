#!/usr/bin/env bash
# Mutation check: does the deterministic simulation bite?
#
# For each mutant, copies the committed workspace (git archive HEAD, never the working
# tree, never committed back) to $WORK/<mutant>, breaks the engine (crates/core/src/engine/)
# on purpose, and runs the DST's CI budget against it. A mutant is "caught" when the DST
# fails; the script prints the first failing seed and how long it took.
#
#   tests/mutants.sh                # all mutants, 10 000 seeds each
#   SEEDS=2000 tests/mutants.sh relist-on-410
#
# Needs git, python3 (for exact multi-line edits) and cargo. Exit status: 0 if every mutant
# was caught.
set -uo pipefail

ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
WORK=${WORK:-${TMPDIR:-/tmp}/kubelive-mutants}
SEEDS=${SEEDS:-10000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$WORK/target}
ALL=(relist-on-410 streaming-added-version synthesized-delete empty-resume-version escalate-despite-progress no-watch-deadline leak-page-ahead)
MUTANTS=("${@:-${ALL[@]}}")

mutate() { # $1 mutant, $2 the engine's directory
  python3 - "$1" "$2" <<'PY'
import glob, sys
name, engine = sys.argv[1], sys.argv[2]
srcs = {p: open(p).read() for p in sorted(glob.glob(f"{engine}/*.rs"))}
edits = {
  # 1. Forget to relist on 410: back off and retry the same step instead.
  "relist-on-410": [(
    "        };\n        self.relist(reason, now);\n    }\n\n    /// \"Too large resource version\"",
    "        };\n        let _ = reason;\n        self.back_off(failed.resume, failed.message, false, None, now);\n    }\n\n    /// \"Too large resource version\"",
  )],
  # 2. Advance the version on a streaming list's synthetic ADDED (and resume from it).
  "streaming-added-version": [(
    "            WatchFrame::Added(object) if initial => self.apply_listed(object),",
    "            WatchFrame::Added(object) if initial => {\n                self.status.resource_version = Some(ResourceVersion::new(object.resource_version()));\n                self.apply_listed(object)\n            }",
  ), (
    "                } else if initial_events_end && !resource_version.is_empty() {\n                    let rv = ResourceVersion::new(&resource_version);",
    "                } else if initial_events_end && !resource_version.is_empty() {\n                    let rv = self.status.resource_version.clone().unwrap_or_else(|| ResourceVersion::new(&resource_version));",
  )],
  # 3. Drop the Deleted event synthesized for an object a relist no longer has.
  "synthesized-delete": [(
    "            self.events.push_back(Event::Deleted(gone));",
    "            let _ = gone;",
  )],
  # 4. Resume a watch with an empty resourceVersion ("most recent").
  "empty-resume-version": [(
    '            .param("resourceVersion", rv.as_str())',
    '            .param("resourceVersion", if resumed { "" } else { rv.as_str() })',
  )],
  # 5. Back off after every broken attempt, progress or not, and never end the streak.
  "escalate-despite-progress": [(
    "        if attempt.progressed || !quick(attempt.sent_at, now) {",
    "        if false {",
  ), (
    "            // Progress: the failure streak is over.\n            self.backoff.reset();",
    "            // (mutant: the streak never ends)",
  )],
  # 6. No deadline on an open watch: neither timeoutSeconds + grace nor idle acts.
  "no-watch-deadline": [(
    "    fn expire(&mut self, timer: Timer, now: Instant) {\n",
    "    fn expire(&mut self, timer: Timer, now: Instant) {\n        if matches!(timer, Timer::WatchEnd | Timer::Idle) {\n            return;\n        }\n",
  )],
  # 7. Forget the page ahead without cancelling it when the list moves on (a failure,
  #    a relist, a stop): its connection is left open.
  "leak-page-ahead": [(
    "            if !matches!(ahead.end, Some(AheadEnd::Dropped)) {\n                self.cancel(ahead.request);\n            }",
    "            let _ = ahead;",
  )],
}[name]
for old, new in edits:
    hits = [p for p, src in srcs.items() if old in src]
    if len(hits) != 1 or srcs[hits[0]].count(old) != 1:
        sys.exit(f"mutant {name}: the engine changed, pattern not found once:\n{old}")
    srcs[hits[0]] = srcs[hits[0]].replace(old, new)
for p, src in srcs.items():
    open(p, "w").write(src)
PY
}

status=0
printf '%-26s %-8s %s\n' mutant result detail
for m in "${MUTANTS[@]}"; do
  dir=$WORK/$m
  rm -rf "$dir" && mkdir -p "$dir"
  git -C "$ROOT" archive HEAD | tar -x -C "$dir"
  if ! mutate "$m" "$dir/crates/core/src/engine"; then
    printf '%-26s %-8s %s\n' "$m" ERROR "could not apply"; status=1; continue
  fi
  if ! (cd "$dir" && cargo build --release -q -p kubelive-tests --bin kubelive-dst 2>"$dir/build.log"); then
    printf '%-26s %-8s %s\n' "$m" ERROR "does not build (see $dir/build.log)"; status=1; continue
  fi
  start=$(date +%s%N)
  out=$("$CARGO_TARGET_DIR/release/kubelive-dst" --seeds "$SEEDS" --no-shrink 2>&1)
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  secs="$((ms / 1000)).$((ms % 1000 / 100))"
  if [ $rc -ne 0 ]; then
    line=$(echo "$out" | grep -m1 '^DST FAILURE' | cut -c1-220)
    printf '%-26s %-8s %ss %s\n' "$m" CAUGHT "$secs" "$line"
  else
    printf '%-26s %-8s %ss %s\n' "$m" MISSED "$secs" "$(echo "$out" | tail -n1)"
    status=1
  fi
done
exit $status
