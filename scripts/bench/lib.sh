# shellcheck shell=bash disable=SC2154  # sourced; $repo comes from the caller
# Shared by the bench scripts: generate a one-cell scenario, run it, read summary.json.
# Sourced; expects $repo.
source "$repo/scripts/k6env.sh"
bench_dir="$repo/.cache/bench"
mkdir -p "$bench_dir"

# bench_scenario NAME BROKER_YAML SIZE RATE BATCH DURATION [PRODUCERS [PACING [CONSUMERS]]]
#   -> path of a one-cell scenario file (2 s warm-up and drain), written by k6 x mqbench ladder
bench_scenario() {
  "$repo/bin/k6" x mqbench ladder --dir "$bench_dir" --write "$1" --broker "$2" --size "$3" --batch "$5" --duration "$6" \
    --producers "${7:-1}" --pacing "${8:-precise}" --consumers "${9:-1}" "$4"
}

# bench_run SCENARIO_FILE -> prints the path of its summary.json (k6 output in .cache/bench/NAME.log)
bench_run() {
  local f=$1 name results
  name=$(basename "$f" .yaml)
  results="$bench_dir/results"
  MQ_RESULTS="$results" "$repo/bin/k6" x mqbench run "$f" -q >"$bench_dir/$name.log" 2>&1 || true
  ls -t "$results/$name"/*/summary.json | head -1
}

# figure SUMMARY FIGURE...: figures of the run's cell, space-separated (k6 x mqbench figure
# --help lists them: the summary.json fields are named there, once).
figure() { "$repo/bin/k6" x mqbench figure "$@"; }
# bench_problems SUMMARY [RECEIVED]: what went wrong in the run, comma-separated, or "-":
# received short of sent (checked when RECEIVED is given and not 0: received=R/S), anything
# lost (lost=N), publish errors (errors=N).
bench_problems() {
  local sent received lost errors problems=()
  read -r sent received lost errors <<<"$(figure "$1" sent received lost publish_errors)"
  if [[ ${2:-0} != 0 ]] && ((received != sent)); then problems+=("received=$received/$sent"); fi
  ((lost == 0)) || problems+=("lost=$lost")
  ((errors == 0)) || problems+=("errors=$errors")
  local IFS=,
  echo "${problems[*]:--}"
}

# Lateness a held rate may show: the schedule's lag stays under bench_late_max_ms, and the VU
# pool covers that many milliseconds of iterations (k6's default covers 50 ms), so a late tick
# waits for a VU instead of being dropped: the ladder's on-time rule with --late-vus. Sections
# whose peer tool is judged the same way (natsfloor) or that have none (replication) use it.
bench_late_max_ms=100

# ratio A B: A / B with two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f\n", a / b }'; }

# bench_run_checked SCENARIO_FILE -> like bench_run, but fails with the end of the k6 log when
# the run wrote no summary.json of its own (bench_run would then print an older one, if any)
# or stopped before its cell ended.
bench_run_checked() {
  local f=$1 name s
  name=$(basename "$f" .yaml)
  rm -rf "$bench_dir/results/$name"
  s=$(bench_run "$f" 2>/dev/null) || true
  if [[ -z $s || ! -f $s ]]; then
    echo "error: k6 wrote no summary for $name; end of $bench_dir/$name.log:" >&2
    tail -n 20 "$bench_dir/$name.log" >&2
    return 1
  fi
  if [[ $(figure "$s" complete) != 1 ]]; then
    echo "error: the $name run did not complete ($s); end of $bench_dir/$name.log:" >&2
    tail -n 20 "$bench_dir/$name.log" >&2
    return 1
  fi
  echo "$s"
}

# Brokers a section needs: start them, and stop at the end only those it started itself.
bench_started=()
# bench_broker_state BROKER -> running / unready / stopped (scripts/brokers/status.sh)
bench_broker_state() { "$repo/scripts/brokers/status.sh" "$1" | awk -v b="$1" '$1 == b { print $2 }'; }
# bench_broker_up BROKER: start it unless it runs already; remember when this section started it.
bench_broker_up() {
  local state
  state=$(bench_broker_state "$1")
  "$repo/scripts/brokers/start.sh" "$1" >&2
  [[ $state == running || $state == unready ]] || bench_started+=("$1")
}
bench_we_started() { local b; for b in "${bench_started[@]}"; do [[ $b == "$1" ]] && return 0; done; return 1; }
# bench_broker_down BROKER: stop it (and remove its data) if this section started it.
bench_broker_down() {
  if bench_we_started "$1"; then
    "$repo/scripts/brokers/stop.sh" "$1" >&2
  elif [[ $(bench_broker_state "$1") == running ]]; then
    echo "$1 was running before this section: left running" >&2
  fi
}

# bench_on_exit FUNC: run FUNC when the script ends, also on Ctrl-C or a kill (exit status 130 /
# 143, as for those signals), so a section always puts down what it brought up.
bench_on_exit() {
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # shellcheck disable=SC2064  # FUNC is the caller's, expanded now on purpose
  trap "$1" EXIT
}
# bench_leave BROKER [TIDY...]: a section's end, as its exit trap (bench_on_exit 'bench_leave
# BROKER …'): a broker the section started is stopped, its data and what the runs left in it
# with it (exit 1 if that fails); one that ran before is left running, after TIDY (a command)
# deleted what this section's runs, or an interrupted earlier one, left on it.
bench_leave() {
  local rc=$? broker=$1
  shift
  if (($#)) && ! bench_we_started "$broker" && [[ $(bench_broker_state "$broker") == running ]]; then
    "$@" || true
  fi
  bench_broker_down "$broker" || rc=1
  exit "$rc"
}
# bench_rabbitmq_delete_queues REGEX: delete RabbitMQ's queues whose names REGEX matches.
bench_rabbitmq_delete_queues() {
  local q
  for q in $("$repo/scripts/brokers/rabbitmqctl.sh" -q list_queues name 2>/dev/null | grep -E "$1" || true); do
    "$repo/scripts/brokers/rabbitmqctl.sh" -q delete_queue "$q" >/dev/null || echo "warning: could not delete queue $q" >&2
  done
}
# bench_kafka_delete_topics BOOTSTRAP REGEX NAME: delete Kafka's topics REGEX matches (NAME
# says them in the warning when that fails).
bench_kafka_delete_topics() {
  "$repo/scripts/brokers/kafka-tool.sh" org.apache.kafka.tools.TopicCommand --bootstrap-server "$1" \
    --delete --if-exists --topic "$2" >/dev/null 2>>"$bench_dir/kafka-tools.log" ||
    echo "warning: could not delete the $3 topics (see $bench_dir/kafka-tools.log)" >&2
}

# bench_duration DEFAULT: sets duration (BENCH_DURATION, else DEFAULT) and secs, its whole
# seconds; exits 2 when it is not whole seconds like DEFAULT.
# shellcheck disable=SC2034  # duration and secs are the caller's
bench_duration() {
  duration=${BENCH_DURATION:-$1}
  secs=${duration%s}
  [[ $secs =~ ^[0-9]+$ ]] || { echo "error: BENCH_DURATION must be whole seconds like $1, got $duration" >&2; exit 2; }
}

# bench_positive_ints VAR...: exits 2 unless each named variable holds a positive integer.
bench_positive_ints() {
  local v
  for v; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "error: $v must be a positive integer, got ${!v}" >&2; exit 2; }
  done
}

# median V... -> their median, no decimals
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f\n", m }'
}
# field LINE N -> the Nth (1-based) space-separated field
field() { local fs; read -r -a fs <<<"$1"; echo "${fs[$2 - 1]}"; }

# bench_latency_verdict SUMMARY -> "held", or "NOT held: dropped N, lost N": latency figures
# from a fixed-rate run describe that rate only if the run kept to it.
bench_latency_verdict() {
  local dropped lost
  read -r dropped lost <<<"$(figure "$1" dropped_iterations lost)"
  if ((dropped == 0 && lost == 0)); then echo held; else echo "NOT held: dropped $dropped, lost $lost"; fi
}

# Rate search: `k6 x mqbench ladder` (its --help: the rules for "held", the rows, the peer),
# its rung scenarios, logs and results in $bench_dir like bench_run's.
#
# bench_ladder LADDER_ARGS... [-- "$0" --bench-peer PROBE]: runs the ladder, shows its rows
# and sets bench_best and bench_best_batch: per rule, mqbench's then the peer's, the highest
# rate held and its batch (0 and "-" when none). The peer is the section itself, started
# again to run one rung of PROBE (bench_peer).
# shellcheck disable=SC2034  # bench_best and bench_best_batch are the caller's
bench_ladder() {
  local res="$bench_dir/ladder.out" best batches
  "$repo/bin/k6" x mqbench ladder --dir "$bench_dir" --late-max "${bench_late_max_ms}ms" "$@" |
    tee "$res" | { grep -v '^#ladder' || true; }
  IFS=$'\t' read -r _ _ best _ batches < <(grep '^#ladder' "$res")
  read -r -a bench_best <<<"$best"
  read -r -a bench_best_batch <<<"$batches"
}

# bench_peer "$@": where a section runs as the ladder's peer (--bench-peer PROBE RATE BATCH
# ON...), before it starts or prints anything, this runs PROBE RATE BATCH ON... (a function
# setting bench_probe_held, per rule 1 held or 0 not, and bench_probe_line, its column of the
# row), answers the ladder (verdicts, a tab, the column) and exits.
bench_peer() {
  [[ ${1:-} == --bench-peer ]] || return 0
  bench_probe_held=() bench_probe_line=-
  "${@:2}" >&2
  printf '%s\t%s\n' "${bench_probe_held[*]}" "$bench_probe_line"
  exit 0
}

# bench_ceiling BEST TOP: a ladder's highest rate held as printed, "≥ BEST" when it was the
# ladder's last rung TOP (a lower bound, not a ceiling).
bench_ceiling() {
  if (($1 < $2)); then echo "$1"; else echo "≥ $1"; fi
}

# Headlines (bin/bench, extensions/internal/bench: the format's one definition): each section
# states its one headline ratio (mqbench ÷ the native tool) as one machine-readable line on
# stdout, which scripts/bench.sh collects into the closing summary table.
# scripts/bench.sh builds bin/bench afresh; a section run alone builds it when it is missing.
[[ -x $repo/bin/bench ]] || (cd "$repo/extensions" && go build -o "$repo/bin/bench" ./cmd/bench)
# bench_headline SECTION WHAT MQBENCH NATIVE RATIO: print a section's headline line.
bench_headline() { "$repo/bin/bench" headline "$@"; }
# bench_summary LOG... : the table of every headline line in the logs (sections in order), as Markdown.
bench_summary() { "$repo/bin/bench" summary "$@"; }
