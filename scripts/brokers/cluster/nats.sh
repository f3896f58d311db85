# shellcheck shell=bash disable=SC2034 # the variables set here are read by nats.sh and cluster.sh
# NATS cluster recipe for cluster.sh (sourced after lib.sh; hooks described in cluster.sh).
# Three nats-server nodes of the single server's recipe (nats.sh) with JetStream, each routed
# to the other two. Node N: client 4300+N, routes 6300+N, monitor 8300+N, server name nN in
# cluster "mqbench": JetStream names a stream's leader by server name, so "n2" is node 2.

# The nats-server build (bin/) is the single server's: built once, never per node.
CLUSTER_SHARED=(bin)

nats_client_port() { echo $((4300 + $1)); }
nats_route_port() { echo $((6300 + $1)); }
nats_monitor_port() { echo $((8300 + $1)); }

nats_node_env() {
	local n=$1 i routes=()
	for i in "${CLUSTER_NODES[@]}"; do
		((i == n)) || routes+=("nats://$HOST:$(nats_route_port "$i")")
	done
	NATS_PORT=$(nats_client_port "$n") NATS_MONITOR_PORT=$(nats_monitor_port "$n")
	NATS_CLUSTER_PORT=$(nats_route_port "$n") NATS_SERVER_NAME=n$n NATS_CLUSTER_NAME=mqbench
	NATS_ROUTES=$(IFS=,; echo "${routes[*]}")
}

# mon NODE PATH: a monitor endpoint of node N.
nats_mon() { curl -fsS -m 2 "http://$HOST:$(nats_monitor_port "$1")$2" 2>/dev/null; }

# Formed = every node routed to both others (a route is a pool of connections per peer, so
# peers are counted by name), a JetStream meta leader whose two peers are current and online,
# and /healthz ok everywhere (which includes "current with the meta leader" and the streams a
# node hosts being caught up: a restarted node has rejoined, not just reconnected). The
# cheap checks go first: a failing /healthz logs a warning in the node's log.
nats_cluster_ready() {
	local n routes=() leader peers
	for n in "${CLUSTER_NODES[@]}"; do
		routes+=("n$n:$(nats_mon "$n" /routez | jq '[.routes[].remote_name] | unique | length' 2>/dev/null || echo -)")
		[[ ${routes[-1]} == "n$n:$((${#CLUSTER_NODES[@]} - 1))" ]] || { echo "routes ${routes[*]}"; return 1; }
	done
	leader=$(nats_mon 1 /jsz | jq -r '.meta_cluster.leader // empty') || true
	[[ $leader =~ ^n[0-9]+$ ]] || { echo "routes ${routes[*]}; no JetStream meta leader yet"; return 1; }
	peers=$(nats_mon "${leader#n}" /jsz | jq '[.meta_cluster.replicas[]? | select(.current and (.offline | not))] | length') || true
	[[ $peers == $((${#CLUSTER_NODES[@]} - 1)) ]] ||
		{ echo "routes ${routes[*]}; meta leader $leader with ${peers:-no} current peers"; return 1; }
	for n in "${CLUSTER_NODES[@]}"; do
		nats_mon "$n" /healthz >/dev/null || { echo "routes ${routes[*]}; meta leader $leader; n$n /healthz not ok yet"; return 1; }
	done
	echo "routes ${routes[*]}, JetStream meta leader $leader + ${peers} current peers, /healthz ok on all"
}

# Formation seen from the outside; the R3 stream shows JetStream can place and replicate.
nats_cluster_probe() {
	local tool=$STATE/bin/natscluster stamp urls=() n go
	# Without Go there is no probe to build (nor a pinned nats-server: Debian's is used).
	go=$(nats_go) || { log "nats: no Go toolchain, R3 stream probe skipped"; return 0; }
	stamp=$(cat "$REPO/extensions/go.mod" "$REPO/extensions/go.sum" "$REPO/extensions/cmd/natscluster/main.go" | sha256sum | cut -c1-16)
	if [[ ! -x $tool || $(cat "$tool.stamp" 2>/dev/null) != "$stamp" ]]; then
		log "nats: building the cluster probe (extensions/cmd/natscluster)"
		(cd "$REPO/extensions" && GOTOOLCHAIN=local "$go" build -trimpath -o "$tool.tmp" ./cmd/natscluster) &&
			mv "$tool.tmp" "$tool" && echo "$stamp" >"$tool.stamp" || return 1
	fi
	for n in "${CLUSTER_NODES[@]}"; do urls+=("nats://$HOST:$(nats_client_port "$n")"); done
	"$tool" -servers "$(IFS=,; echo "${urls[*]}")" -replicas "${#CLUSTER_NODES[@]}" -timeout "${CLUSTER_TIMEOUT:-60}s"
}

# leader STREAM: the node whose server says it leads STREAM (account $G, no auth). Asking the
# leaders themselves, not a follower's possibly stale view; exactly one must claim it.
nats_leader() {
	local stream=$1 n found=()
	for n in "${CLUSTER_NODES[@]}"; do
		nats_mon "$n" '/jsz?accounts=true&streams=true&stream-leader-only=true' |
			jq -e --arg s "$stream" '[.account_details[]?.stream_detail[]? | select(.name == $s)] | length > 0' >/dev/null 2>&1 &&
			found+=("$n")
	done
	((${#found[@]} == 1)) || { log "nats: stream $stream: ${#found[@]} nodes claim to lead it (${found[*]:-none})"; return 1; }
	echo "${found[0]}"
}

nats_cluster_summary() {
	local leader
	leader=$(for n in "${CLUSTER_NODES[@]}"; do nats_mon "$n" /jsz && break; done | jq -r '.meta_cluster.leader // "none"' 2>/dev/null) || true
	echo "JetStream meta leader: ${leader:-unknown}"
}
