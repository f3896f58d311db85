#!/usr/bin/env bash
# Usage: scripts/brokers/cluster.sh ACTION BROKER [NODE]
#   start   BROKER [N]  start every node (or node N) and wait until the cluster has formed
#   stop    BROKER [N]  graceful stop; all nodes: their data removed too, node N: data kept
#   kill    BROKER [N]  SIGKILL, data kept (bring it back with start)
#   restart BROKER [N]  graceful stop + start, data kept
#   status  BROKER      one line per node (state, pid, client address, RSS), then the cluster's
#   listeners BROKER    listeners.sh on every node: fails unless all sockets are on loopback
#   leader  BROKER STREAM  prints the number N of the node leading STREAM (exit 1: none yet)
# BROKER: nats, rabbitmq, kafka (leader: STREAM, QUEUE or TOPIC).
#
# A three-node cluster on this machine, every listener on 127.0.0.1. Each node is the broker's
# single-server recipe (BROKER.sh, through lib.sh's start_one/stop_one/kill_one: pid file,
# port checks, readiness) run with its own state dir <state>/cluster/BROKER/nN (run/ logs/
# data/ conf/) and its own ports, plus the cluster variables that recipe reads. A node's own
# probe says the node is up; the cluster recipe (cluster/BROKER.sh) then says whether the
# cluster has formed. Node N of a NATS cluster is server name nN (how JetStream names a
# stream's leader).
#
# Port plan, node N = 1..3 (fixed, so a test or a person can reach any node without asking):
#   nats      client 4300+N   routes 6300+N       monitor 8300+N
#   rabbitmq  AMQP 5700+N     management 15700+N  prometheus 15790+N   (distribution 25700+N)
#   kafka     client 9200+N   controller 9300+N   SASL 9400+N          (node.id N)
#
# Environment: MQBENCH_STATE as for start.sh; CLUSTER_TIMEOUT [60] seconds for the cluster to
# form after its nodes are up; START_TIMEOUT, STOP_TIMEOUT per node as for start.sh/stop.sh.
#
# A cluster recipe, cluster/BROKER.sh, defines:
#   BROKER_node_env N      sets node N's port variables and the cluster variables BROKER.sh
#                          reads (plain shell variables, set before lib.sh is sourced for node N)
#   BROKER_cluster_ready   one check of the whole cluster: prints why not and returns 1, or
#                          prints a one-line summary; cluster.sh loops on it
# and optionally:
#   CLUSTER_SHARED=(dir...)   dirs of the main state dir the nodes share (the installed broker)
#   CLUSTER_START=sequential  start node 1, then 2, then 3 (default: all at once)
#   CLUSTER_STOP=parallel     stop every node at once (default: one after another)
#   BROKER_node_started N     run in node N's context after its start (e.g. a join step)
#   BROKER_cluster_probe      after formation, a real client round trip (may retry itself)
#   BROKER_cluster_summary    a line for status;  BROKER_leader NAME  the leader's node number
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { die "usage: $0 start|stop|kill|restart|status|listeners BROKER [1-3] | leader BROKER STREAM"; }
[[ $# -ge 2 ]] || usage
ACTION=$1 CLUSTER_BROKER=$2 ARG=${3:-}
check_broker "$CLUSTER_BROKER"
[[ -e $BROKERS_DIR/cluster/$CLUSTER_BROKER.sh ]] ||
	die "$CLUSTER_BROKER has no cluster recipe yet (scripts/brokers/cluster/$CLUSTER_BROKER.sh)"
CLUSTER_NODES=(1 2 3)
CLUSTER_SHARED=()
CLUSTER_START=parallel
CLUSTER_STOP=sequential
# shellcheck source=cluster/nats.sh
source "$BROKERS_DIR/cluster/$CLUSTER_BROKER.sh"
CLUSTER_DIR=$STATE/cluster/$CLUSTER_BROKER
need_cmd jq jq

NODES=("${CLUSTER_NODES[@]}")
if [[ $ACTION != leader && -n $ARG ]]; then
	[[ " ${CLUSTER_NODES[*]} " == *" $ARG "* ]] || die "node '$ARG': one of ${CLUSTER_NODES[*]}"
	NODES=("$ARG")
fi

node_dir() { echo "$CLUSTER_DIR/n$1"; }

# on_node N COMMAND...: COMMAND in a subshell where lib.sh and the recipes are sourced again
# for node N: STATE is the node's dir, the port variables only the node's (any *_PORT of the
# caller or of the main state's ports files is dropped first), so start_one & co. work on the
# node unchanged. on_node prefixes the output (stderr too) with nN.
in_node() {
	local n=$1
	shift
	(
		mapfile -t vars < <(compgen -v | grep -E '^[A-Z][A-Z0-9_]*_PORT$' || true)
		((${#vars[@]} == 0)) || unset "${vars[@]}"
		# shellcheck disable=SC2034 # read by lib.sh
		MQBENCH_STATE=$(node_dir "$n")
		"${CLUSTER_BROKER}_node_env" "$n"
		# shellcheck source=lib.sh
		source "$BROKERS_DIR/lib.sh"
		"$@"
	)
}
on_node() { in_node "$@" 2>&1 | sed -u "s/^/n$1: /"; }

# Install once in the main state dir and let the nodes use it through symlinks.
install_shared() {
	local b=$CLUSTER_BROKER n d
	"${b}_installed" || "${b}_install"
	for n in "${CLUSTER_NODES[@]}"; do
		mkdir -p "$(node_dir "$n")"
		for d in "${CLUSTER_SHARED[@]}"; do
			mkdir -p "$STATE/$d"
			# Relinked unless it already points here: a link left by a state dir that has since
			# gone (a copy of .cache from elsewhere) would dangle.
			[[ $(readlink "$(node_dir "$n")/$d") == "$STATE/$d" ]] || ln -sfn "$STATE/$d" "$(node_dir "$n")/$d"
		done
	done
}

node_start() {
	on_node "$1" start_one "$CLUSTER_BROKER"
	if declare -F "${CLUSTER_BROKER}_node_started" >/dev/null; then
		on_node "$1" "${CLUSTER_BROKER}_node_started" "$1"
	fi
}

# node_pid N: the node's pid if it is running and ours (broker_pid in the node's context).
node_pid() { in_node "$1" broker_pid "$CLUSTER_BROKER"; }

rss() { awk '/^VmRSS:/ { printf "%d MB", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo -; }

rss_line() {
	local n pid out=()
	for n in "${CLUSTER_NODES[@]}"; do
		pid=$(node_pid "$n") && out+=("n$n $(rss "$pid")") || out+=("n$n down")
	done
	printf 'RSS %s' "${out[0]}"
	printf ', %s' "${out[@]:1}"
	echo
}

# Loop on the recipe's ready check until it passes or CLUSTER_TIMEOUT; prints its summary.
wait_cluster() {
	local t0 why limit=${CLUSTER_TIMEOUT:-60}
	t0=$(now_us)
	until why=$("${CLUSTER_BROKER}_cluster_ready"); do
		if (($(now_us) - t0 > limit * 1000000)); then
			log "$CLUSTER_BROKER cluster not formed after ${limit}s: $why"
			for n in "${CLUSTER_NODES[@]}"; do
				log "n$n: last 10 lines of $(node_dir "$n")/logs/$CLUSTER_BROKER.log"
				tail -n 10 "$(node_dir "$n")/logs/$CLUSTER_BROKER.log" >&2 2>/dev/null || true
			done
			log "nodes left running for a look; scripts/brokers/cluster.sh stop $CLUSTER_BROKER removes them"
			return 1
		fi
		sleep 0.2
	done
	echo "$CLUSTER_BROKER cluster formed: $why ($(since "$t0"))"
}

cluster_start() {
	local t0 n pids=() rc=0
	t0=$(now_us)
	install_shared
	if [[ $CLUSTER_START == sequential || ${#NODES[@]} == 1 ]]; then
		for n in "${NODES[@]}"; do node_start "$n"; done
	else
		for n in "${NODES[@]}"; do node_start "$n" & pids+=($!); done
		for n in "${pids[@]}"; do wait "$n" || rc=1; done
		((rc == 0)) || die "$CLUSTER_BROKER: a node did not start (above)"
	fi
	wait_cluster
	if declare -F "${CLUSTER_BROKER}_cluster_probe" >/dev/null; then "${CLUSTER_BROKER}_cluster_probe"; fi
	echo "$CLUSTER_BROKER cluster ready $(since "$t0") after start of node(s) ${NODES[*]}; $(rss_line)"
}

cluster_status() {
	local n pid state
	printf '%-4s %-8s %-8s %-16s %s\n' NODE STATE PID CLIENT RSS
	for n in "${CLUSTER_NODES[@]}"; do
		if pid=$(node_pid "$n"); then
			state=running
			in_node "$n" ports_open "$CLUSTER_BROKER" || state=unready
		else
			pid=- state=stopped
		fi
		printf '%-4s %-8s %-8s %-16s %s\n' "n$n" "$state" "$pid" \
			"$(in_node "$n" "${CLUSTER_BROKER}_addr")" "$(if [[ $pid == - ]]; then echo -; else rss "$pid"; fi)"
	done
	if declare -F "${CLUSTER_BROKER}_cluster_summary" >/dev/null; then "${CLUSTER_BROKER}_cluster_summary"; fi
	echo "state dirs: $CLUSTER_DIR/n${CLUSTER_NODES[0]}..n${CLUSTER_NODES[-1]}"
}

case $ACTION in
start)
	need_cmd curl curl
	cluster_start
	;;
stop)
	if [[ $CLUSTER_STOP == parallel ]]; then
		pids=()
		for n in "${NODES[@]}"; do on_node "$n" stop_one "$CLUSTER_BROKER" & pids+=($!); done
		for p in "${pids[@]}"; do wait "$p" || true; done
	else
		for n in "${NODES[@]}"; do on_node "$n" stop_one "$CLUSTER_BROKER"; done
	fi
	# The whole cluster gone: its data too, as stop.sh does (a lone node's data is its replica).
	if ((${#NODES[@]} == ${#CLUSTER_NODES[@]})); then
		for n in "${NODES[@]}"; do rm -rf "$(node_dir "$n")/data"; done
	fi
	;;
kill)
	for n in "${NODES[@]}"; do on_node "$n" kill_one "$CLUSTER_BROKER"; done
	;;
restart)
	need_cmd curl curl
	for n in "${NODES[@]}"; do on_node "$n" stop_one "$CLUSTER_BROKER"; done
	cluster_start
	;;
status) cluster_status ;;
listeners)
	rc=0
	for n in "${NODES[@]}"; do
		MQBENCH_STATE=$(node_dir "$n") "$BROKERS_DIR/listeners.sh" "$CLUSTER_BROKER" 2>&1 | sed "s/^/n$n: /" || rc=1
	done
	exit "$rc"
	;;
leader)
	[[ -n $ARG ]] || usage
	declare -F "${CLUSTER_BROKER}_leader" >/dev/null || die "$CLUSTER_BROKER: no leader lookup in its cluster recipe"
	"${CLUSTER_BROKER}_leader" "$ARG"
	;;
*) usage ;;
esac
