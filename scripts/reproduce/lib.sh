# shellcheck shell=bash disable=SC2154  # sourced; $repo comes from the caller
# Shared by the reproduce sections (scripts/reproduce/*.sh): run a shipped study scenario,
# scaled down when asked, against the broker the section brought up, and print the figures
# docs/reproductions.md tabulates. Sourced; expects $repo. Builds on scripts/bench/lib.sh
# (json, ratio, starting and stopping brokers the section needs).
#
# REPRODUCE_SCALE (1): a fraction for a short smoke run. Message counts are multiplied by it
#   (at least 100), durations, warm-ups, drains and a search's step and confirm too (at least
#   3 s, 1 s for a warm-up, 10 s for a drain, 20 s for a message-counted cell's time limit):
#   each is part of the cell's slot, k6 fixing every cell's start in advance, so a long drain
#   or limit kept would make a smoke run wait. 1 runs every scenario as shipped.
# REPRODUCE_START (1): 0 never starts a broker: a scenario whose broker is not running is
#   skipped with a line saying so (for a machine whose brokers belong to others).
source "$repo/scripts/bench/lib.sh"
repro_dir="$repo/.cache/reproduce"
repro_results="$repro_dir/results"
mkdir -p "$repro_dir/scenarios" "$repro_results"
scale=${REPRODUCE_SCALE:-1}
[[ $scale =~ ^(0?\.[0-9]*[1-9][0-9]*|1(\.0*)?)$ ]] ||
  { echo "error: REPRODUCE_SCALE must be a fraction in (0, 1], got $scale" >&2; exit 2; }

# repro_scenario NAME [FROM=TO ...] -> the path of scenarios/NAME.yaml as it will run: the
# shipped file when the scale is 1 and nothing is replaced, else a copy in .cache/reproduce
# with the scale applied and each FROM replaced by TO (a private broker's url).
repro_scenario() {
  local name=$1 src="$repo/scenarios/$1.yaml" dst="$repro_dir/scenarios/$1.yaml"
  shift
  if [[ $scale == 1 && $# -eq 0 ]]; then echo "$src"; return; fi
  python3 - "$src" "$dst" "$scale" "$@" <<'PY'
import re, sys, yaml
src, dst, scale, subs = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
text = open(src, encoding="utf-8").read()
for s in subs:
    a, b = s.split("=", 1)
    text = text.replace(a, b)
d = yaml.safe_load(text)
def secs(v):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", str(v))
    if not m:
        sys.exit(f"{src}: cannot scale duration {v!r}")
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]
def scaled(v, floor):
    return f"{max(floor, round(secs(v) * scale))}s"
w = d.get("workload", {})
for k, floor in (("duration", 3), ("warmup", 1), ("drain", 10)):
    if k in w:
        w[k] = scaled(w[k], floor)
for c in d.get("matrix", []):
    if "messages" in c:
        c["messages"] = max(100, round(c["messages"] * scale))
        if "duration" in c:  # a time limit, and the cell's slot: k6 fixes every cell's start
            c["duration"] = scaled(c["duration"], 20)
    elif "duration" in c:
        c["duration"] = scaled(c["duration"], 3)
    for k, floor in (("warmup", 1), ("drain", 10)):
        if k in c:
            c[k] = scaled(c[k], floor)
s = d.get("search")
if s:
    for k in ("step", "confirm"):
        if k in s:
            s[k] = scaled(s[k], 3)
with open(dst, "w", encoding="utf-8") as f:
    f.write(f"# {src}, scaled by {scale} for scripts/reproduce\n")
    yaml.safe_dump(d, f, sort_keys=False)
PY
  echo "$dst"
}

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

# repro_run FILE -> the path of its summary.json, or for a scenario with a search block its
# search.json. A scenario of several cells of which one counts messages runs one cell at a
# time (repro_split) and its summaries are joined into one: k6 fixes every cell's start in
# advance, so a counted cell done in seconds would otherwise wait out its whole time limit
# before the next began (the commit-log throughput files: 2.5 h of waiting in 3 h).
repro_run() {
  local f=$1 parts p s sums=()
  mapfile -t parts < <(repro_split "$f")
  ((${#parts[@]} > 1)) || { repro_run_one "$f"; return; }
  for p in "${parts[@]}"; do
    s=$(repro_run_one "$p") || return 1
    sums+=("$s")
  done
  repro_join "$(basename "$f" .yaml)" "${sums[@]}"
}

# repro_split FILE -> FILE itself, or, for a scenario without a search block whose several
# cells include one that counts messages, one file per cell in .cache/reproduce/split
# (NAME-cI.yaml, named so: a scenario's name is its file stem), each the scenario with only
# that cell.
repro_split() {
  python3 - "$1" "$repro_dir/split" <<'PY'
import os, sys, yaml
src, out = sys.argv[1], sys.argv[2]
d = yaml.safe_load(open(src, encoding="utf-8"))
cells = d.get("matrix", [])
if "search" in d or len(cells) < 2 or not any("messages" in c for c in cells):
    print(src)
    sys.exit()
os.makedirs(out, exist_ok=True)
for i, c in enumerate(cells, 1):
    part = dict(d, name=f"{d['name']}-c{i}", matrix=[c])
    dst = os.path.join(out, f"{part['name']}.yaml")
    with open(dst, "w", encoding="utf-8") as f:
        f.write(f"# {src}, cell c{i} alone, for scripts/reproduce\n")
        yaml.safe_dump(part, f, sort_keys=False)
    print(dst)
PY
}

# repro_join NAME SUMMARY... -> the path of one summary.json holding every part's cell, in
# order, with the ids of the scenario they came from (c1, c2, …): the tables read it as if the
# scenario had run whole. Each part's own results stay where its run wrote them.
repro_join() {
  local name=$1 dir
  dir="$repro_results/$1/joined-$(date -u +%Y%m%dT%H%M%SZ)"
  shift
  mkdir -p "$dir"
  python3 - "$name" "$dir/summary.json" "$@" <<'PY'
import json, sys
name, dst, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = [json.load(open(p)) for p in parts]
joined = dict(runs[0], scenario=name, results_dir=None, parts=parts, cells=[])
joined["thresholds_ok"] = all(r.get("thresholds_ok", True) for r in runs)
joined["complete"] = all(r.get("complete", True) for r in runs)
for i, r in enumerate(runs, 1):
    joined["cells"] += [dict(c, id=f"c{i}") for c in r["cells"]]
with open(dst, "w", encoding="utf-8") as f:
    json.dump(joined, f, indent=1)
PY
  echo "$dir/summary.json"
}

# repro_run_one FILE -> as repro_run, for one k6 run (k6's output in .cache/reproduce/NAME.log);
# fails with the end of that log when the run wrote neither. A threshold that failed (exit
# 99) is a result, not an error: the tables show what was measured.
repro_run_one() {
  local f=$1 name s rc=0 out=summary.json
  name=$(basename "$f" .yaml)
  grep -q '^search:' "$f" && out=search.json
  rm -rf "${repro_results:?}/$name"
  # `run` of a scenario with a search block runs the search (k6 x mqbench run --help).
  MQ_RESULTS="$repro_results" "$repo/bin/k6" x mqbench run "$f" -q >"$repro_dir/$name.log" 2>&1 || rc=$?
  # shellcheck disable=SC2012  # the folders are UTC timestamps: plain names
  s=$(ls -t "$repro_results/$name"/*/"$out" 2>/dev/null | head -1)
  if [[ -z $s ]]; then
    echo "error: $name (exit $rc) wrote no $out; end of $repro_dir/$name.log:" >&2
    tail -n 15 "$repro_dir/$name.log" >&2
    return 1
  fi
  echo "$s"
}

# cell SUMMARY ID EXPR: a Python expression over cell ID's object `c` of a summary.json.
cell() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=next(x for x in d['cells'] if x['id']==sys.argv[2]); print($3)" "$1" "$2"
}
# ms US -> US microseconds in milliseconds, 2 decimals
ms() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / 1000))" "$1"; }

# repro_header TITLE: a section's heading, with the scale and the machine.
repro_header() {
  printf '\n## %s\n\nscale %s, %s cores, %s\n\n' "$1" "$scale" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)"
}

# repro_latency_rows SUMMARY: one markdown row per cell: scenario, cell, size, rate, e2e p50,
# p99, p99.99, mean ± stddev (ms), and whether the cell held its rate (nothing dropped or lost).
repro_latency_rows() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cells"]:
    e = c["e2e_latency_us"]; p = e.get("percentiles", {})
    held = "yes" if c["dropped_iterations"] == 0 and c["ledger"]["lost"] == 0 else "no"
    f = lambda v: "%.2f" % (v / 1000)
    print(f"| {d['scenario']} | {c['id']} | {c['size']} | {c['rate'] or 'max'} | {f(p.get('p50', 0))} | {f(p.get('p99', 0))} | "
          f"{f(p.get('p99_99', 0))} | {f(e.get('mean', 0))} ± {f(e.get('stddev', 0))} | {held} |")
PY
}

# repro_rate_rows SUMMARY: one markdown row per cell: scenario, cell, size, messages sent,
# sender, receiver and end-to-end rates (msg/s), publish and e2e p99 (ms), lost.
repro_rate_rows() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cells"]:
    p99 = lambda k: "%.2f" % (c[k].get("percentiles", {}).get("p99", 0) / 1000)
    print(f"| {d['scenario']} | {c['id']} | {c['size']} | {c['sent']} | {c['sender_rate']:.0f} | {c['receiver_rate']:.0f} | "
          f"{c.get('e2e_rate', 0):.0f} | {p99('publish_latency_us')} | {p99('e2e_latency_us')} | {c['ledger']['lost']} |")
PY
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
  [[ $(curl -fsS -m 5 http://127.0.0.1:18322/varz | python3 -c "import json,sys; print(json.load(sys.stdin)['jetstream']['config'].get('sync_always', False))") == True ]] ||
    { echo "error: the private NATS server does not report sync_always" >&2; return 1; }
}
repro_private_nats_down() { env "${repro_nats_env[@]}" "$repo/scripts/brokers/stop.sh" nats >&2 || true; }
