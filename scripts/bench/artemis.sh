#!/usr/bin/env bash
# ActiveMQ Artemis over AMQP 1.0, 1 KB durable messages, unsettled sends (publish latency ends
# at the broker's disposition), one producer and one consumer: mqbench (bin/k6, its amqp10
# driver on go-amqp, address plain) beside Artemis's own `artemis perf client --protocol AMQP`
# (qpid-jms, shipped in the pinned Artemis distribution), same broker, same session,
# interleaved so both see the same machine noise.
#   1. at 1,000 msg/s, 10 s measured after a warm-up: publish latency (send -> disposition)
#      p50 / p99 and end-to-end (perf client: "transfer time") p50 / p99
#   2. highest rate held over BENCH_DURATION (default 60 s, the project's window for "held"),
#      by two rules, each applied to both tools (each rule stops at its first failure):
#      on schedule: mqbench = no dropped iteration, nothing lost, everything received (the
#        project's rule); perf client = never more than 100 ms behind its schedule, every
#        message completed and received (natsfloor's rule in the nats section: a generator without a
#        VU pool cannot drop a tick, it falls behind and then sends faster to catch up)
#      on average: mean sent, acknowledged (completed) and received rates >= 98 % of the
#        target, nothing lost, everything received (PerfTest's rule in the rabbitmq section)
# BENCH_RATES and BENCH_DURATION override the search. Starts Artemis if needed and stops it at
# the end only if this script started it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
# The broker recipe's own values: ARTEMIS_HOME, ARTEMIS_VERSION, ports, the test-only user.
source "$repo/scripts/brokers/lib.sh"
addr=$HOST:$ARTEMIS_PORT
artemis=$ARTEMIS_HOME/bin/artemis
credit=256   # consumer link credit, both tools (perf client: qpid-jms prefetch)
# Unsettled sends one publisher may have, both tools: mqbench's fixed maxInFlight, read from
# the driver so the perf client's --max-pending follows it (its default, 1, would cap the
# producer at one message per round trip).
in_flight=$(sed -n 's/^[[:space:]]*maxInFlight = \([0-9][0-9]*\).*/\1/p' "$repo/extensions/internal/driver/amqp10drv/amqp10.go")
[[ $in_flight =~ ^[0-9]+$ ]] || { echo "error: cannot read maxInFlight from extensions/internal/driver/amqp10drv/amqp10.go" >&2; exit 2; }
# send_queue: the producer's transfers are written by the publisher's goroutine, so a write
# delayed by the machine costs queue time (in the publish latency) rather than a dropped tick,
# as the perf client's asynchronous sends do; BENCH_ARTEMIS_SEND_QUEUE 0 writes in the send.
send_queue=${BENCH_ARTEMIS_SEND_QUEUE:-8192}
broker="{ type: amqp10, url: \"amqp://$ARTEMIS_USER:$ARTEMIS_PASSWORD@$addr\", amqp10: { address: plain, settle: unsettled, durable: true, credit: $credit, send_queue: $send_queue } }"
bench_duration 60s   # sets duration and secs; a rate is held only over a sustained window
warmup=2   # seconds, as bench_scenario's warm-up
# The perf client's warm-up: a fresh JVM each run, whose first seconds are interpreted code
# (up to 2.7 s behind schedule after 8 s at 7,500 msg/s, measured). Its figures leave out its
# first 10 s; both tools are measured over the same window length after their warm-up.
pc_warmup=10
pc_prefix=mqbench-artemis-pc   # perf client queues: one per run
stamp=${BENCH_STAMP:-$(date +%H%M%S)}
export BENCH_STAMP=$stamp   # the same in the ladder's peer runs

# pc RATE SECONDS QUEUE -> path of the perf client's JSON report (.cache/bench/QUEUE.json;
# console output in QUEUE.log), or "timeout" when it had not finished SECONDS + 3 min after
# its start (it waits until its consumer has received every message sent). One producer and
# one consumer connection, persistent (durable) messages sent unsettled with a completion
# listener (completion = the broker's disposition), at most $in_flight unsettled, consumer
# prefetch $credit, auto-acknowledge (an accept per message, as mqbench). </dev/null: the CLI
# prompts for input when anything is missing or fails.
pc() {
  local rate=$1 secs=$2 queue=$3 log json rc=0
  log="$bench_dir/$queue.log" json="$bench_dir/$queue.json"
  rm -f "$json"
  timeout -k 15 $((secs + pc_warmup + 180)) "$artemis" perf client --protocol AMQP \
    --url "amqp://$addr?jms.prefetchPolicy.all=$credit" --user "$ARTEMIS_USER" --password "$ARTEMIS_PASSWORD" \
    --producers 1 --consumers 1 --threads 1 --persistent --message-size 1024 --rate "$rate" \
    --max-pending "$in_flight" --duration $((secs + pc_warmup)) --warmup "$pc_warmup" --json "$json" \
    "queue://$queue" </dev/null >"$log" 2>&1 || rc=$?
  if (( rc == 124 || rc == 137 )); then echo timeout; return 0; fi
  if (( rc != 0 )) || [[ $(pcf "$json" 2>/dev/null | awk '{ print $NF }') != success ]]; then
    echo "error: artemis perf client failed at $rate msg/s (exit $rc); end of $log:" >&2
    grep -v '^[[:space:]]*at ' "$log" | tail -n 20 >&2
    return 1
  fi
  echo "$json"
}
# pcf JSON: the perf client's report's figures on one line: over its per-second samples after
# the warm-up while the producer ran (the last, partial second and the drain left out), the
# mean sent, completed and received msg/s (1-3) and the max delaySendTime, its lateness
# against the rate's schedule, µs (4); 1 when its summary's totalSent, totalCompleted and
# totalReceived (6-8) are equal, else 0 (5); totalSendTime and totalTransferTime p50 and p99,
# µs, after the warm-up (9-12); its result (last). Fails when no sample is left.
pcf() {
  jq -r --arg path "$1" '
    def mean(k): map(.[k]) | add / length;
    first(.[] | select(.sampleType == "summary")) as $s
    | [.[] | select(.sampleType == "interval" and (.warmup | not))]
    | until(length == 0 or .[-1].sent != 0; .[:-1]) | .[:-1]
    | if length == 0 then "no perf client samples after the warm-up in \($path)\n" | halt_error(1) else . end
    | [mean("sent"), mean("completed"), mean("received"), (map(.delaySendTime.max) | max),
       (if $s.totalReceived == $s.totalSent and $s.totalSent == $s.totalCompleted then 1 else 0 end),
       $s.totalSent, $s.totalCompleted, $s.totalReceived, $s.totalSendTime["50"], $s.totalSendTime["99"],
       $s.totalTransferTime["50"], $s.totalTransferTime["99"], $s.result]
    | map(tostring) | join(" ")' "$1"
}
# The perf client's probe (the ladder's peer) judges its run by both rules, as the ladder's
# held and average rules judge mqbench's: on schedule (S), on average (M); ON_S and ON_M say
# which still climb (a stopped rule is not judged again).
# verdicts S M: a probe's two verdicts; a row held on average alone says so.
verdicts() {
  bench_probe_held=("$1" "$2")
  if (( !$1 && $2 )); then bench_probe_line+="  (held on average only)"; fi
}
# p_probe RATE BATCH ON_S ON_M
p_probe() {
  local rate=$1 c S=0 M=0
  c=$(pc "$rate" "$secs" "$pc_prefix-$stamp-rate-$rate")
  if [[ $c == timeout ]]; then
    bench_probe_held=(0 0) bench_probe_line="timed out draining its backlog"
    return 0
  fi
  # On schedule: everything in, never over 100 ms late; on average: everything in, each mean
  # rate >= 98 % of the target.
  read -r S M bench_probe_line <<<"$(pcf "$c" | awk -v rate="$rate" '{
    m = $1 < $2 ? $1 : $2; m = m < $3 ? m : $3
    printf "%d %d %.0f %.0f %.0f %.0fms", ($5 && $4 <= 100e3), ($5 && m >= 0.98 * rate), $1, $2, $3, $4 / 1e3
    if (!$5) printf " sent %d completed %d received %d", $6, $7, $8
    print ""
  }')"
  (( $3 )) || S=0
  (( $4 )) || M=0
  verdicts "$S" "$M"
}
bench_peer "$@"

# delete_queues: remove this section's queues that are still there. Artemis (as the scripts
# configure it) auto-deletes an auto-created queue once it is empty and has no consumer, but
# only at its next scan (30 s), and never one a failed run left messages in.
delete_queues() {
  local q core=(--url "tcp://$HOST:$ARTEMIS_CORE_PORT" --user "$ARTEMIS_USER" --password "$ARTEMIS_PASSWORD")
  queues() {
    "$artemis" queue stat "${core[@]}" --json --queueName mqbench --maxRows 10000 </dev/null 2>>"$bench_dir/artemis-cli.log" |
      jq -Rsr --arg p "$pc_prefix" 'sub("^[^{]*"; "") | fromjson | .data[].name | select(test("^(\($p)-|mqbench\\.bench\\.artemis-)"))'
  }
  for q in $(queues); do   # a queue auto-deleted meanwhile fails here: checked below
    "$artemis" queue delete "${core[@]}" --name "$q" --removeConsumers --autoDeleteAddress </dev/null >>"$bench_dir/artemis-cli.log" 2>&1 || true
  done
  if ! q=$(queues) || [[ -n $q ]]; then
    echo "warning: queues left on Artemis: ${q:-(cannot list them, see $bench_dir/artemis-cli.log)}" >&2
    return 1
  fi
}
# On a broker this section did not start, delete_queues removes our queues (and any a crashed
# earlier run left).
bench_on_exit 'bench_leave artemis delete_queues'
bench_broker_up artemis


echo "== ActiveMQ Artemis $ARTEMIS_VERSION, AMQP 1.0, 1 KB, durable, unsettled sends, 1 producer + 1 consumer: mqbench (k6, go-amqp $(awk '$1 == "require" && $2 == "github.com/Azure/go-amqp" { print $3 } $1 == "github.com/Azure/go-amqp" { print $2 }' "$repo/extensions/go.mod")) vs artemis perf client (qpid-jms $(basename "$ARTEMIS_HOME"/lib/qpid-jms-client-*.jar .jar | sed 's/^qpid-jms-client-//')), $addr, $(nproc) cores"

# 0. warm the broker: a JVM started seconds ago answers several times slower than a warm one
# (perf client send p50 16 ms, 8 ms, then 2.6 ms in three runs after a start, measured), and
# whichever tool measured first would pay for it. Neither tool's figures are kept.
c=$(pc 2000 5 "$pc_prefix-$stamp-warmup")
[[ $c != timeout ]] || { echo "error: the perf client warm-up run timed out" >&2; exit 1; }
bench_run_checked "$(bench_scenario artemis-warmup "$broker" 1KB 2000 1 10s)" >/dev/null

# 1. publish and end-to-end latency at 1,000 msg/s, 10 s after the warm-up
s=$(bench_run_checked "$(bench_scenario artemis-latency-1000 "$broker" 1KB 1000 1 10s)")
read -r k50 k99 ke50 ke99 <<<"$(figure "$s" publish_p50_us publish_p99_us e2e_p50_us e2e_p99_us)"
c=$(pc 1000 10 "$pc_prefix-$stamp-latency")
[[ $c != timeout ]] || { echo "error: the perf client latency run timed out (see $bench_dir/$pc_prefix-$stamp-latency.log)" >&2; exit 1; }
read -r _ _ _ _ _ _ _ _ p50 p99 pe50 pe99 _ <<<"$(pcf "$c")"

# 2. rate search, one rate at a time for both
# Default ladder: on 2 cores both tools fell behind at 15,000 msg/s in 15 s probes.
read -r -a rates <<<"${BENCH_RATES:-2000 5000 7500 10000 12500 15000}"
printf '\n%-8s %-6s %-50s %s\n' rate batch "mqbench: sent/s recv/s dropped lost late-max" "perf client: sent/s completed/s recv/s late-max"
# batch: rate / 2000, to keep k6 at <= 2,000 iterations/s, as the nats section
bench_ladder --name artemis-rate --broker "$broker" --duration "$duration" --rule held,average \
  --line sent/s,recv/s,dropped,lost,late-max0,errors --per-batch 2000 --row '%-8s %-6s %-50s %s' --peer-rules 2 "${rates[@]}" \
  -- "$0" --bench-peer p_probe
ks=${bench_best[0]} ks_b=${bench_best_batch[0]} km=${bench_best[1]} km_b=${bench_best_batch[1]}
ps=${bench_best[2]} pm=${bench_best[3]}

printf '\n%-46s %16s %16s %8s\n' "" "mqbench (k6)" "perf client" "ratio"
row() { printf '%-46s %14.0fus %14.0fus %7sx\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }
row "publish->disposition p50 at 1,000 msg/s" "$k50" "$p50"
row "publish->disposition p99 at 1,000 msg/s" "$k99" "$p99"
row "end-to-end p50 at 1,000 msg/s" "$ke50" "$pe50"
row "end-to-end p99 at 1,000 msg/s" "$ke99" "$pe99"
printf '%-46s %16s %16s %8s\n' "highest rate held ${secs} s on schedule (batch)" "$ks ($ks_b)" "$ps" "$(ratio "$ks" "$ps")x"
printf '%-46s %16s %16s %8s\n' "highest rate held ${secs} s on average (batch)" "$km ($km_b)" "$pm" "$(ratio "$km" "$pm")x"
(( secs >= 60 )) || echo "note: ${secs} s windows are shorter than the project's 60 s rule for \"held\" (BENCH_DURATION)"
cat <<NOTE
Publish latency = send -> the broker's disposition (accepted) of an unsettled transfer, per
message; end-to-end = send -> receipt by the consumer (the perf client's "transfer time").
Artemis writes a durable message to its journal before it settles or delivers it, so both
figures carry the journal write. Both tools run 1 producer + 1 consumer connection in one
process (k6 / the perf client's JVM) beside the broker's JVM on $(nproc) cores; at most
$in_flight unsettled sends per producer, consumer credit (prefetch) $credit, one accept per
message. The perf client keeps HdrHistograms at 2 significant digits (about 1 %); its clock
starts at its own send call, not at the schedule. Held on schedule: mqbench dropped no tick
(k6 drops a tick when every VU of its pool, ~50 ms of ticks, is busy) and lost nothing; the
perf client was never more than 100 ms behind its schedule (late-max; mqbench's late-max is
its schedule lag) and every message was completed and received. Held on average: mean
sent, acknowledged and received rates >= 98 % of the target and everything received, for
both (a generator that falls behind and catches up passes). Windows: ${secs} s measured,
after a ${warmup} s warm-up (mqbench) or ${pc_warmup} s (perf client, a new JVM each run);
rate ladder ${rates[*]} msg/s, each rule stops at its first rate not held (holding the top
rate means "at least").
mqbench's send_queue: $send_queue (0: each send writes its transfer before it returns).
(k6 logs and summaries, perf client output and JSON: $bench_dir)
NOTE
bench_headline artemis "highest rate held ${secs} s on schedule, msg/s (artemis perf client)" "$ks" "$ps perf client" "$(ratio "$ks" "$ps")x"
