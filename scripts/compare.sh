#!/usr/bin/env bash
# `make compare`: compares finished runs with `bin/k6 x mqbench compare`. Two modes:
#   RUNS="results/a results/b ..."      overlay the runs on one percentile chart per cell and
#                                       write compare.html + compare.md (the table is printed)
#   BASELINE=DIR CANDIDATE=DIR [TOLERANCE=10%] [METRICS=e2e.p99,publish.p99,receiver_rate]
#                                       regression gate: exit 1 if any cell's metric got worse
#                                       beyond the tolerance and the run-to-run noise, naming the
#                                       cell and by how much; BASELINE="DIR DIR …" (and CANDIDATE)
#                                       for repeated runs
# A DIR is a run's folder (results/<scenario>/<timestamp>) or results/<scenario> (its latest run).
# COMPARE_OUT=DIR puts compare.html/compare.md there (default results/compare/<UTC timestamp>).
# Exit: 0 no regression, 1 regression, 2 bad arguments or unreadable results.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
k6="${MQBENCH_K6:-$repo/bin/k6}"
args=()
[[ -n "${COMPARE_OUT:-}" ]] && args+=(--out "$COMPARE_OUT")
if [[ -n "${BASELINE:-}${CANDIDATE:-}" ]]; then
  [[ -n "${BASELINE:-}" && -n "${CANDIDATE:-}" ]] || {
    echo "compare: BASELINE and CANDIDATE go together: make compare BASELINE=results/x CANDIDATE=results/y [TOLERANCE=10%]" >&2
    exit 2
  }
  [[ -n "${RUNS:-}" ]] && { echo "compare: give RUNS or BASELINE/CANDIDATE, not both" >&2; exit 2; }
  read -r -a bases <<<"$BASELINE"
  read -r -a cands <<<"$CANDIDATE"
  for d in "${bases[@]}"; do args+=(--baseline "$d"); done
  for d in "${cands[@]}"; do args+=(--candidate "$d"); done
  args+=(--tolerance "${TOLERANCE:-10%}")
  [[ -n "${METRICS:-}" ]] && args+=(--metric "$METRICS")
  exec "$k6" x mqbench compare "${args[@]}"
fi
[[ -n "${RUNS:-}" ]] || {
  echo 'compare: make compare RUNS="results/a results/b ..." | BASELINE=results/x CANDIDATE=results/y [TOLERANCE=10%] [METRICS=e2e.p99,receiver_rate]' >&2
  exit 2
}
read -r -a runs <<<"$RUNS"
exec "$k6" x mqbench compare "${args[@]}" "${runs[@]}"
