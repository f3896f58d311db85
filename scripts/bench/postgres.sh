#!/usr/bin/env bash
# PostgreSQL as a queue, 1 KB messages, one PostgreSQL 15 (scripts/brokers/start.sh postgres):
# mqbench (bin/k6, pgx) beside pgbench running the same statements on the same kind of table,
# same server, same session, interleaved (first tool alternating) so both see the same noise.
# Table (both): id bigserial primary key, payload bytea (the driver's Setup; no NOTIFY trigger:
# mqbench's consumer polls, the driver's default wakeup).
#   enqueue (both): INSERT INTO t (payload) VALUES ($1), autocommit, one row per message, a
#     1 KB payload sent with each execution (pgbench: -M prepared, the payload a -D variable).
#   dequeue (both): BEGIN; DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id FOR UPDATE
#     SKIP LOCKED LIMIT 100) RETURNING payload; COMMIT (the driver's transaction_per_batch).
#   1. producer only: pgbench enqueue on BENCH_PG_CONNS connections (-T) vs mqbench `rate: max`
#      with consumers 0 on as many producer connections (each INSERT waits for its COMMIT in
#      both), msg/s.
#   2. producer + consumer: the same enqueue plus one dequeuing connection at once (pgbench:
#      a second pgbench process, -c 1, running the dequeue script in a loop; rows dequeued =
#      rows inserted - rows left) vs mqbench `rate: max` with 1 consumer, msg/s in and out.
#   3. publish latency at BENCH_PG_RATE (500) msg/s, p50 / p99: pgbench -R on the enqueue
#      (per-transaction log) vs mqbench's publish latency (INSERT -> COMMIT) at that rate.
#   4. producer only, multi-row: both tools INSERT BENCH_PG_BATCH (100) rows per statement
#      (pgbench: a script of one INSERT … VALUES (:payload), … of that many rows; mqbench:
#      publish_batch, each producer with that many messages unanswered), rows/s. The headline.
# BENCH_PG_SECONDS (10) per run, BENCH_PG_REPEATS (1) interleaved pairs, BENCH_PG_CONNS (2);
# about 1.5 minutes with the defaults. Starts the server if needed and stops it (removing its
# data) only if this script started it; otherwise drops the tables its runs created.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
secs=${BENCH_PG_SECONDS:-10}
repeats=${BENCH_PG_REPEATS:-1}
conns=${BENCH_PG_CONNS:-2}
rate=${BENCH_PG_RATE:-500}
rows=${BENCH_PG_BATCH:-100}
bench_positive_ints secs repeats conns rate rows
port=${POSTGRES_PORT:-5532}
url="postgres://postgres@127.0.0.1:$port/mqbench"
pgbin=/usr/lib/postgresql/15/bin
pb_prefix=mqbench_pgbench   # pgbench's tables: one per run, dropped after it
stamp=$(date +%H%M%S)
batch=100                   # rows per dequeue, both tools (the driver's batch_size default)
payload='\x'$(head -c 1024 /dev/urandom | od -An -v -tx1 | tr -d ' \n')

psql_() { "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d mqbench "$@"; }
# tidy: on a server this section did not start, what an interrupted run of ours may have left.
tidy() {
  local t
  for t in $(psql_ -tAc "SELECT tablename FROM pg_tables WHERE tablename LIKE '${pb_prefix}_${stamp}_%' OR tablename LIKE 'mqbench.bench.pg-%'" 2>/dev/null); do
    psql_ -c "DROP TABLE IF EXISTS \"$t\"" >/dev/null 2>&1 || echo "warning: could not drop table $t" >&2
  done
}
bench_on_exit 'bench_leave postgres tidy'
bench_broker_up postgres

# The scripts pgbench runs on table "$1": enqueue and dequeue, as the driver sends them.
pb_scripts() {
  local t="\"$1\"" values
  echo "INSERT INTO $t (payload) VALUES (:payload::bytea);" >"$bench_dir/$1.enq.sql"
  values=$(printf ', (:payload::bytea)%.0s' $(seq "$rows"))
  echo "INSERT INTO $t (payload) VALUES ${values:2};" >"$bench_dir/$1.enqm.sql"
  printf 'BEGIN;\nDELETE FROM %s WHERE id IN (SELECT id FROM %s ORDER BY id FOR UPDATE SKIP LOCKED LIMIT %d) RETURNING payload;\nCOMMIT;\n' \
    "$t" "$t" "$batch" >"$bench_dir/$1.deq.sql"
}
# pb_table NAME: the table the driver's Setup creates (wakeup poll: no trigger).
pb_table() { psql_ -c "CREATE TABLE \"$1\" (id bigserial PRIMARY KEY, payload bytea NOT NULL)"; }
pb_drop() { psql_ -c "DROP TABLE IF EXISTS \"$1\"" >/dev/null; }
# tx LOG -> pgbench's "number of transactions actually processed"
tx() {
  local v
  v=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$1")
  [[ -n $v ]] || { echo "error: no transaction count in $1:" >&2; tail -n 20 "$1" >&2; return 1; }
  echo "$v"
}
# pb NAME [reader|multi] -> "inserted/s dequeued/s": pgbench enqueue on $conns connections for
# secs seconds (with reader: a dequeuing pgbench at the same time; dequeued/s "-" without; with
# multi: $rows rows per INSERT, rows/s).
pb() {
  local t="${pb_prefix}_${stamp}_$1" reader=${2:-} elog dlog dpid="" rc=0 n left d=- script=enq per=1
  if [[ $reader == multi ]]; then reader="" script=enqm per=$rows; fi
  elog="$bench_dir/$t.enq.log" dlog="$bench_dir/$t.deq.log"
  pb_scripts "$t"
  pb_table "$t"
  if [[ -n $reader ]]; then
    timeout $((secs + 60)) "$pgbin/pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c 1 -j 1 \
      -T "$secs" -f "$bench_dir/$t.deq.sql" mqbench >"$dlog" 2>&1 &
    dpid=$!
  fi
  timeout $((secs + 60)) "$pgbin/pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c "$conns" -j "$conns" \
    -T "$secs" -D "payload=$payload" -f "$bench_dir/$t.$script.sql" mqbench >"$elog" 2>&1 || rc=$?
  if [[ -n $dpid ]]; then wait "$dpid" || rc=$?; fi
  left=$(psql_ -tAc "SELECT count(*) FROM \"$t\"")
  pb_drop "$t"
  (( rc == 0 )) || { echo "error: pgbench failed (exit $rc); see $elog $dlog" >&2; tail -n 5 "$elog" >&2; return 1; }
  n=$(( $(tx "$elog") * per ))
  [[ -z $reader ]] || d=$(( (n - left) / secs ))
  echo "$(( n / secs )) $d"
}
# pb_latency -> "p50_us p99_us held": pgbench enqueue at $rate tx/s (-R, $conns connections,
# 2 s not counted, as mqbench's warm-up), from its per-transaction log.
pb_latency() {
  local t="${pb_prefix}_${stamp}_lat" log="$bench_dir/${pb_prefix}_${stamp}_lat.log" rc=0
  pb_scripts "$t"
  pb_table "$t"
  rm -f "$bench_dir"/pgbench_log.*
  (cd "$bench_dir" && timeout $((secs + 60)) "$pgbin/pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared \
    -c "$conns" -j "$conns" -R "$rate" -T $((secs + 2)) -l -D "payload=$payload" -f "$t.enq.sql" mqbench >"$log" 2>&1) || rc=$?
  pb_drop "$t"
  (( rc == 0 )) || { echo "error: pgbench -R failed (exit $rc); see $log" >&2; tail -n 5 "$log" >&2; return 1; }
  # Log lines (with -R): client_id transaction_no time_us script_no time_epoch time_us_of_epoch schedule_lag_us
  # With -R, time_us counts from the scheduled start: the lag is taken off. The first 2 s (from
  # the earliest transaction) are the warm-up; p50 / p99 are the nearest-rank latencies.
  awk 'NF >= 7 && $3 ~ /^[0-9]+$/ { n++; t[n] = $5 * 1000000 + $6; l[n] = $3 - $7; if (n == 1 || t[n] < min) min = t[n] }
    END { for (i = 1; i <= n; i++) if (t[i] >= min + 2000000) print l[i] }' "$bench_dir"/pgbench_log.* | sort -n |
    awk -v rate="$rate" -v secs="$secs" '{ lat[NR] = $1 }
      function q(x,  i) { i = int(x * NR); return lat[(i < NR - 1 ? i : NR - 1) + 1] }
      END { print q(0.50), q(0.99), (NR >= 0.98 * rate * secs ? "held" : sprintf("NOT_held:_%d_of_%d", NR, rate * secs)) }'
  rm -f "$bench_dir"/pgbench_log.*
}
# mq NAME CONSUMERS [ROWS] -> "sent/s received/s publish_p50_us problems" of a `rate: max` run
# (inflight 1: each producer's INSERT waits for its COMMIT, as pgbench's; with ROWS,
# publish_batch ROWS and inflight 2 x ROWS: each producer's multi-row INSERT of ROWS waits for
# its COMMIT while the next ROWS messages gather, so every INSERT finds a full batch waiting,
# as pgbench's script always has) on table mqbench.bench.pg-NAME.
mq() {
  local name=$1 consumers=$2 per=${3:-1} f s window sr rr p50
  window=$(( per > 1 ? 2 * per : 1 ))
  f="$bench_dir/$name.yaml"
  cat >"$f" <<YAML
name: $name
description: generated by scripts/bench/postgres.sh (1KB, rate max, $conns producer(s), $consumers consumer(s))
broker: { type: postgres, url: "$url", postgres: { batch_size: $batch, wakeup: poll, publish_batch: $per } }
workload: { destination: mqbench.bench.$name, warmup: 0s, duration: ${secs}s, drain: 5s, producers: $conns, consumers: $consumers }
matrix:
  - { size: 1KB, rate: max, inflight: $window }
YAML
  s=$(bench_run_checked "$f")
  read -r sr rr p50 <<<"$(figure "$s" sender_rate receiver_rate publish_p50_us)"
  printf '%.0f %.0f %.0f %s\n' "$sr" "$rr" "$p50" "$(bench_problems "$s" "$consumers")"
}

echo "== PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') as a queue, 1 KB: mqbench (k6, pgx) vs pgbench (same INSERT / DELETE … SKIP LOCKED statements, same table), 127.0.0.1:$port, $(nproc) cores, $conns enqueuing connection(s) per tool, ${secs} s per run, $repeats interleaved pair(s)"

# 1. producer only
printf '\n%-4s %-9s %-44s %s\n' run first "mqbench consumers 0: sent/s (p50 us, problems)" "pgbench enqueue: msg/s"
k1=() b1=()
for ((i = 1; i <= repeats; i++)); do
  first=mqbench; (( i % 2 )) || first=pgbench
  if [[ $first == mqbench ]]; then
    k=$(mq "pg-max-w-$i" 0); b=$(pb "w_$i")
  else
    b=$(pb "w_$i"); k=$(mq "pg-max-w-$i" 0)
  fi
  k1+=("$(field "$k" 1)") b1+=("$(field "$b" 1)")
  printf '%-4s %-9s %-44s %s\n' "$i" "$first" "$(field "$k" 1) ($(field "$k" 3), $(field "$k" 4))" "$(field "$b" 1)"
done

# 2. producer + consumer at once
printf '\n%-4s %-9s %-44s %s\n' run first "mqbench consumers 1: sent/s recv/s (problems)" "pgbench enqueue + dequeue: in/s out/s"
k2s=() k2r=() b2w=() b2r=()
for ((i = 1; i <= repeats; i++)); do
  first=mqbench; (( i % 2 )) || first=pgbench
  if [[ $first == mqbench ]]; then
    k=$(mq "pg-max-wr-$i" 1); b=$(pb "wr_$i" reader)
  else
    b=$(pb "wr_$i" reader); k=$(mq "pg-max-wr-$i" 1)
  fi
  k2s+=("$(field "$k" 1)") k2r+=("$(field "$k" 2)") b2w+=("$(field "$b" 1)") b2r+=("$(field "$b" 2)")
  printf '%-4s %-9s %-44s %s\n' "$i" "$first" "$(field "$k" 1) $(field "$k" 2) ($(field "$k" 4))" "$(field "$b" 1) $(field "$b" 2)"
done

# 4. producer only, multi-row INSERTs
printf '\n%-4s %-9s %-44s %s\n' run first "mqbench publish_batch $rows: rows/s (p50 us, problems)" "pgbench $rows-row INSERT: rows/s"
k4=() b4=()
for ((i = 1; i <= repeats; i++)); do
  first=mqbench; (( i % 2 )) || first=pgbench
  if [[ $first == mqbench ]]; then
    k=$(mq "pg-max-wm-$i" 0 "$rows"); b=$(pb "wm_$i" multi)
  else
    b=$(pb "wm_$i" multi); k=$(mq "pg-max-wm-$i" 0 "$rows")
  fi
  k4+=("$(field "$k" 1)") b4+=("$(field "$b" 1)")
  printf '%-4s %-9s %-44s %s\n' "$i" "$first" "$(field "$k" 1) ($(field "$k" 3), $(field "$k" 4))" "$(field "$b" 1)"
done

# 3. publish latency at $rate msg/s: mqbench first, then pgbench -R
s=$(bench_run_checked "$(bench_scenario "pg-latency-$rate" "{ type: postgres, url: \"$url\" }" 1KB "$rate" 1 "${secs}s" "$conns")")
l50=$(figure "$s" publish_p50_us)
l99=$(figure "$s" publish_p99_us)
lok=$(bench_latency_verdict "$s")
read -r p50 p99 pok < <(pb_latency)

row() { printf '%-56s %14s %14s %8s\n' "$1" "$2" "$3" "$4"; }
echo
row "" "mqbench (k6)" "pgbench" "ratio"
a=$(median "${k1[@]}") b=$(median "${b1[@]}"); row "producer only, msg/s" "$a" "$b" "$(ratio "$a" "$b")x"
ha=$(median "${k4[@]}") hb=$(median "${b4[@]}"); row "producer only, $rows-row INSERTs, msg/s" "$ha" "$hb" "$(ratio "$ha" "$hb")x"
a=$(median "${k2s[@]}") b=$(median "${b2w[@]}"); row "producer + consumer, enqueued msg/s" "$a" "$b" "$(ratio "$a" "$b")x"
a=$(median "${k2r[@]}") b=$(median "${b2r[@]}"); row "producer + consumer, dequeued msg/s" "$a" "$b" "$(ratio "$a" "$b")x"
a=$(printf '%.0f' "$l50"); row "INSERT -> COMMIT p50 at $rate msg/s, us" "$a" "$p50" "$(ratio "$a" "$p50")x"
a=$(printf '%.0f' "$l99"); row "INSERT -> COMMIT p99 at $rate msg/s, us" "$a" "$p99" "$(ratio "$a" "$p99")x"
echo "rate $rate held: mqbench $lok; pgbench ${pok//_/ }"
cat <<NOTE
Closed loops (rows 1-3), medians over $repeats run(s) of ${secs} s: $conns connection(s)
INSERTing, each waiting for its COMMIT (synchronous_commit on: a WAL flush per COMMIT,
shared by concurrent ones) before the next. The consumer side: one connection taking batches
of $batch rows in a transaction per batch; pgbench's dequeuer loops without pause, mqbench's
waits 5 ms (poll_interval) when it found the table empty, and hands every row to its
measurement in the same k6 process as its producers. pgbench's enqueue sends the payload as text (hex, 2 KB
on the wire), mqbench as binary (1 KB). Latency rows: $rate msg/s spread over $conns
connections, the first 2 s not counted; mqbench's is Send -> COMMIT returned, pgbench's its
transaction time from the transaction's actual start (its logged time minus schedule lag).
The multi-row row: both tools INSERT $rows rows per statement and COMMIT; mqbench gathers
them from its closed loop ($((2 * rows)) unanswered per producer: one INSERT running, the
next batch gathering), each message timed from its send
to its statement's COMMIT (its wait for the batch included).
(k6 logs and summaries, pgbench output: $bench_dir)
NOTE
bench_headline postgres "producer only, $rows-row INSERTs, msg/s (pgbench)" "$ha" "$hb pgbench" "$(ratio "$ha" "$hb")x"
