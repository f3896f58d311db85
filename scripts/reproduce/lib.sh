# shellcheck shell=bash disable=SC2154  # sourced; $repo comes from the caller
# Shared by the reproduce sections (scripts/reproduce/*.sh): run a shipped study scenario,
# scaled down when asked, against the broker the section brought up, and print the figures
# docs/reproductions.md tabulates. Sourced; expects $repo.
#
# REPRODUCE_SCALE (1): a fraction for a short smoke run. Message counts are multiplied by it
#   (at least 100), durations, warm-ups, drains and a search's step and confirm too (at least
#   3 s, 1 s for a warm-up, 10 s for a drain, 20 s for a message-counted cell's time limit):
#   each is part of the cell's slot, k6 fixing every cell's start in advance, so a long drain
#   or limit kept would make a smoke run wait. 1 runs every scenario as shipped.
# REPRODUCE_START (1): 0 never starts a broker: a scenario whose broker is not running is
#   skipped with a line saying so (for a machine whose brokers belong to others).
source "$repo/scripts/k6env.sh"

# ratio A B: A / B with two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f\n", a / b }'; }
# Brokers a section needs: started when not running; at the end only those it started are
# stopped (bench_broker_down, from each section's exit trap).
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
# bench_broker_down BROKER: stop it (and remove its data) if this section started it.
bench_broker_down() {
  local b
  for b in "${bench_started[@]}"; do
    [[ $b == "$1" ]] && { "$repo/scripts/brokers/stop.sh" "$1" >&2; return; }
  done
  [[ $(bench_broker_state "$1") != running ]] || echo "$1 was running before this section: left running" >&2
}
# bench_on_exit FUNC: run FUNC when the script ends, also on Ctrl-C or a kill (exit status 130 /
# 143, as for those signals), so a section always puts down what it brought up.
bench_on_exit() {
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # shellcheck disable=SC2064  # FUNC is the caller's, expanded now on purpose
  trap "$1" EXIT
}
repro_dir="$repo/.cache/reproduce"
repro_results="$repro_dir/results"
mkdir -p "$repro_results"
scale=${REPRODUCE_SCALE:-1}
[[ $scale =~ ^(0?\.[0-9]*[1-9][0-9]*|1(\.0*)?)$ ]] ||
  { echo "error: REPRODUCE_SCALE must be a fraction in (0, 1], got $scale" >&2; exit 2; }

# repro_run NAME [FROM=TO ...] -> the path of what scenarios/NAME.yaml measured, run by
# `k6 x mqbench reproduce run` (its --help: the scaling, one cell at a time when a cell counts
# messages) with each FROM replaced by TO (a private broker's url); files and k6's output in
# .cache/reproduce. A threshold that failed is a result: the tables show what was measured.
repro_run() {
  local sc=$1 sub subs=()
  shift
  for sub; do subs+=(--sub "$sub"); done
  "$repo/bin/k6" x mqbench reproduce run --scale "$scale" --dir "$repro_dir" "${subs[@]}" "$repo/scenarios/$sc.yaml"
}
# cell SUMMARY ID FIELD: one figure of cell ID (e2e_rate, sender_rate, receiver_rate, e2e_p99_us).
cell() { "$repo/bin/k6" x mqbench reproduce cell "$@"; }
# repro_latency_rows SUMMARY / repro_rate_rows SUMMARY: the tables' Markdown rows, one per cell.
repro_latency_rows() { "$repo/bin/k6" x mqbench reproduce rows latency "$1"; }
repro_rate_rows() { "$repo/bin/k6" x mqbench reproduce rows rate "$1"; }

# repro_up BROKER: the broker a section needs. Started (and stopped at the section's end) when
# not running, unless REPRODUCE_START=0; returns 1 when it does not run then.
repro_up() {
  local state addr
  state=$(bench_broker_state "$1")
  [[ $state == running ]] && return 0
  # One started from another state dir (status.sh knows only its own) serves all the same:
  # its address answering is enough, and starting another on the same ports would fail.
  addr=$("$repo/scripts/brokers/status.sh" "$1" | awk -v b="$1" '$1 == b { print $4 }')
  if [[ -n $addr ]] && (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; then
    echo "-- $1: $addr answers (a server started elsewhere): using it" >&2
    return 0
  fi
  if [[ ${REPRODUCE_START:-1} == 0 ]]; then
    echo "-- $1 is not running and REPRODUCE_START=0: its runs are skipped" >&2
    return 1
  fi
  bench_broker_up "$1"
}

# repro_header TITLE: a section's heading, with the scale and the machine.
repro_header() {
  printf '\n## %s\n\nscale %s, %s cores, %s\n\n' "$1" "$scale" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)"
}

# repro_ratio LABEL A B STUDY: a row of the ratio table: A / B beside the study's ratio.
repro_ratio() { printf '| %s | %s | %s |\n' "$1" "$(ratio "$2" "$3")" "$4"; }

# repro_private_nats_up: a NATS server of its own (NATS_SYNC_ALWAYS=1: fsync after every
# write) on 14322 / monitor 18322, in .cache/reproduce/nats-state, for the fsync runs; it never
# touches the shared server on 4222. Stopped by repro_private_nats_down.
repro_nats_env=(MQBENCH_STATE="$repro_dir/nats-state" NATS_PORT=14322 NATS_MONITOR_PORT=18322 NATS_SYNC_ALWAYS=1)
repro_private_nats_up() {
  local main=${MQBENCH_STATE:-$repo/.cache/brokers} own="$repro_dir/nats-state"
  mkdir -p "$own/bin"
  # The shared state dir's build of the pinned server, if any (else start.sh builds one).
  if [[ -x $main/bin/nats-server && ! -e $own/bin/nats-server ]]; then
    ln -sfn "$main/bin/nats-server" "$own/bin/nats-server"
    cp "$main/bin/nats-server.stamp" "$own/bin/" 2>/dev/null || true
  fi
  env "${repro_nats_env[@]}" "$repo/scripts/brokers/start.sh" nats >&2
  # The setting must have reached the server (varz), or the fsync figures would be the file
  # store's.
  curl -fsS -m 5 http://127.0.0.1:18322/varz | grep -Eq '"sync_always": *true' ||
    { echo "error: the private NATS server does not report sync_always" >&2; return 1; }
}
repro_private_nats_down() { env "${repro_nats_env[@]}" "$repo/scripts/brokers/stop.sh" nats >&2 || true; }
