#!/usr/bin/env bash
# NATS core, 1 KB: how late iterations start (schedule lag) and what precise pacing costs, for
# mqbench (bin/k6) beside natsfloor (plain nats.go, the same open-model loop) paced the same way,
# with workload.pacing / -pacing precise and timer, at 1,000 msg/s (batch 1) and 10,000 msg/s
# (batch 5, as the rate search keeps k6 at <= 2,000 iterations/s). Every configuration runs
# BENCH_PACING_REPEATS times (default 3) for BENCH_PACING_DURATION (default 10s), interleaved,
# and the medians are printed.
# Run by nats.sh (make bench); alone: scripts/bench/pacing.sh (needs nats-server on 4222).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
url=nats://127.0.0.1:4222
broker="{ type: nats, url: \"$url\", nats: { mode: core } }"
repeats=${BENCH_PACING_REPEATS:-3}
duration=${BENCH_PACING_DURATION:-10s}
bench_positive_ints repeats
[[ $duration =~ ^[1-9][0-9]*s$ ]] || { echo "error: BENCH_PACING_DURATION must be whole seconds like 10s, got $duration" >&2; exit 2; }
(cd "$repo/extensions" && go build -o "$repo/bin/natsfloor" ./cmd/natsfloor)

# One line per run: tool rate pacing lag_p50 lag_p99 e2e_p50 intended_p50 cpu (µs)
rows="$bench_dir/pacing.rows"
: >"$rows"
for ((i = 1; i <= repeats; i++)); do
  for rb in 1000:1 10000:5; do
    rate=${rb%:*} batch=${rb#*:}
    for pacing in precise timer; do
      s=$(bench_run_checked "$(bench_scenario "nats-pacing-$pacing-$rate" "$broker" 1KB "$rate" "$batch" "$duration" 1 "$pacing")")
      echo "mqbench $rate $pacing $(figure "$s" schedule_lag_p50_us schedule_lag_p99_us e2e_p50_us e2e_intended_p50_us cpu_per_message_us)" >>"$rows"
      echo "floor $rate $pacing $("$repo/bin/natsfloor" -url "$url" -warmup 2s -rate "$rate" -batch "$batch" -duration "$duration" \
        -pacing "$pacing" -fields schedule_lag_p50_us,schedule_lag_p99_us,e2e_p50_us,e2e_intended_p50_us,cpu_per_message_us)" >>"$rows"
    done
  done
done

# The medians over the runs of each tool, rate and pacing, with [min-max]; the gap is e2e from
# the intended send time minus e2e, each run's.
awk -v repeats="$repeats" -v duration="$duration" -v cores="$(nproc)" '
  { k = $1 SUBSEP $2 SUBSEP $3; n[k]++; v[k, "lag_p50", n[k]] = $4; v[k, "lag_p99", n[k]] = $5
    v[k, "gap", n[k]] = $7 - $6; v[k, "cpu", n[k]] = $8 }
  # med: median, min and max of the values of key k, metric m, into r[1..3]
  function med(key, m, r,  i, j, t, a, c) {
    c = n[key]; for (i = 1; i <= c; i++) a[i] = v[key, m, i] + 0
    for (i = 2; i <= c; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    r[1] = c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2; r[2] = a[1]; r[3] = a[c]
  }
  function cell(r) { return sprintf("%8.1fus [%.0f-%.0f]", r[1], r[2], r[3]) }
  END {
    printf "\n== NATS core pacing, 1 KB: median of %s interleaved runs of %s (%s cores); [min-max] shows the noise\n", repeats, duration, cores
    printf "%-60s %24s %24s %7s\n", "", "mqbench (k6)", "plain nats.go", "ratio"
    split("1000 10000", rates, " "); label[1000] = "1,000 msg/s"; label[10000] = "10,000 msg/s (batch 5)"
    split("precise timer", pacings, " "); split("lag_p50 lag_p99 gap cpu", ms, " ")
    name["lag_p50"] = "schedule lag p50"; name["lag_p99"] = "schedule lag p99"
    name["gap"] = "e2e from intended p50 - e2e p50"; name["cpu"] = "CPU per message"
    for (ri = 1; ri <= 2; ri++) {
      rate = rates[ri]
      for (pi = 1; pi <= 2; pi++) for (mi = 1; mi <= 4; mi++) {
        med("mqbench" SUBSEP rate SUBSEP pacings[pi], ms[mi], mq); med("floor" SUBSEP rate SUBSEP pacings[pi], ms[mi], fl)
        printf "%-60s %24s %24s %7s\n", name[ms[mi]] ", " label[rate] ", " pacings[pi], cell(mq), cell(fl), (fl[1] > 0 ? sprintf("%.2fx", mq[1] / fl[1]) : "-")
      }
      split("mqbench floor", tools, " "); tname["mqbench"] = "mqbench"; tname["floor"] = "nats.go"
      for (ti = 1; ti <= 2; ti++) {
        med(tools[ti] SUBSEP rate SUBSEP "precise", "cpu", pr); med(tools[ti] SUBSEP rate SUBSEP "timer", "cpu", tm)
        printf "  %s at %s: precise pacing costs %+.1fus CPU per message (%.1f vs %.1f)\n", tname[tools[ti]], label[rate], pr[1] - tm[1], pr[1], tm[1]
      }
    }
  }' "$rows"
echo "(k6 logs and summaries: $bench_dir; rows: $rows)"
