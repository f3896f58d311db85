# shellcheck shell=bash disable=SC2034 # the variables set here are read by kafka.sh and cluster.sh
# Kafka cluster recipe for cluster.sh (sourced after lib.sh; hooks described in cluster.sh).
# Three KRaft nodes of the single node's recipe (kafka.sh), each broker and controller, node.id
# N (so broker id "2", as drivers report a leader, is node 2), one static controller quorum of
# all three, one cluster id. Node N: client 9200+N, controller 9300+N, SASL_PLAINTEXT 9400+N
# (the single node's test user). Replication factor 3 for every topic, internal ones too,
# min.insync.replicas 2, no unclean leader election. The checks are extensions/cmd/kafkacluster
# (franz-go, built into bin/ on first use): no JVM start per check.

# The jars (kafka/lib) are the single node's: copied once, never per node.
CLUSTER_SHARED=(kafka)
# Three JVMs on a small machine: a smaller heap than the single node's 512m-1g.
: "${KAFKA_CLUSTER_HEAP_OPTS:=-Xms256m -Xmx512m}"

kafka_client_port() { echo $((9200 + $1)); }
kafka_controller_port() { echo $((9300 + $1)); }

# The cluster id all nodes' storage is formatted with: made by the first node's start that
# needs it, in node 1's data dir so that it goes when the cluster's data does (stop). ln
# publishes it atomically, so nodes starting at once agree on it.
kafka_cluster_id() {
	local f=$CLUSTER_DIR/n${CLUSTER_NODES[0]}/data/cluster.id tmp
	if [[ ! -s $f ]]; then
		mkdir -p "${f%/*}"
		tmp=$(mktemp "$f.XXXXXX")
		kafka_random_id >"$tmp"
		ln "$tmp" "$f" 2>/dev/null || true # another node's was first
		rm -f "$tmp"
	fi
	cat "$f"
}

kafka_node_env() {
	local n=$1 i voters=()
	for i in "${CLUSTER_NODES[@]}"; do voters+=("$i@$HOST:$(kafka_controller_port "$i")"); done
	KAFKA_PORT=$(kafka_client_port "$n") KAFKA_CONTROLLER_PORT=$(kafka_controller_port "$n")
	KAFKA_SASL_PORT=$((9400 + n)) KAFKA_NODE_ID=$n KAFKA_REPLICATION=${#CLUSTER_NODES[@]}
	KAFKA_QUORUM_VOTERS=$(IFS=,; echo "${voters[*]}")
	KAFKA_CLUSTER_ID=$(kafka_cluster_id) || die "kafka: no cluster id (node 1's data dir)"
	KAFKA_HEAP_OPTS=$KAFKA_CLUSTER_HEAP_OPTS
}

# kafka_cluster_tool ARGS...: extensions/cmd/kafkacluster against all nodes, rebuilt when it or
# the pinned modules change. The build logs to stderr; the tool's stderr goes to file
# descriptor TOOL_ERR_FD (2; 1 where its complaint is the check's answer).
kafka_cluster_tool() {
	local tool=$STATE/bin/kafkacluster stamp seeds=() n go
	go=$(nats_go) || die "kafka cluster: its checks need a Go toolchain (extensions/cmd/kafkacluster)"
	stamp=$(cat "$REPO/extensions/go.mod" "$REPO/extensions/go.sum" "$REPO/extensions/cmd/kafkacluster/main.go" | sha256sum | cut -c1-16)
	if [[ ! -x $tool || $(cat "$tool.stamp" 2>/dev/null) != "$stamp" ]]; then
		log "kafka: building the cluster checks (extensions/cmd/kafkacluster)"
		mkdir -p "$STATE/bin"
		(cd "$REPO/extensions" && GOTOOLCHAIN=local "$go" build -trimpath -o "$tool.tmp" ./cmd/kafkacluster) &&
			mv "$tool.tmp" "$tool" && echo "$stamp" >"$tool.stamp" || return 1
	fi
	for n in "${CLUSTER_NODES[@]}"; do seeds+=("$HOST:$(kafka_client_port "$n")"); done
	"$tool" -brokers "$(IFS=,; echo "${seeds[*]}")" -nodes "${#CLUSTER_NODES[@]}" "$@" 2>&"${TOOL_ERR_FD:-2}"
}

# Formed = the metadata quorum has a leader and all nodes as voters, each follower caught up
# with it within 3 s (a restarted node has rejoined, not just connected), and all nodes are
# registered, unfenced brokers. Each node's own probe (a topic listing) passed before.
kafka_cluster_ready() { TOOL_ERR_FD=1 kafka_cluster_tool ready; }

# A replicated topic in use: 3 replicas, min.insync.replicas 2, acks=all, read back, 3 in sync.
kafka_cluster_probe() { kafka_cluster_tool -timeout "${CLUSTER_TIMEOUT:-60}s" probe; }

# leader TOPIC: the node leading TOPIC's partition 0 (its broker id).
kafka_leader() { kafka_cluster_tool leader "$1"; }

kafka_cluster_summary() {
	local n
	for n in "${CLUSTER_NODES[@]}"; do
		port_open "$HOST" "$(kafka_client_port "$n")" || continue
		TOOL_ERR_FD=1 kafka_cluster_tool summary || true
		return
	done
	echo "no node up"
}

# lib.sh's stop_one calls this before its SIGTERM (kafka.sh, the single node, has no such
# hook). A graceful stop is a controlled shutdown that the active controller acknowledges;
# with no majority of controllers up, itself included (the last node of `stop kafka`), none does
# and the node would wait 5 minutes, so it gets SIGKILL at once: its data is kept as after
# `kill`, recovered at its next start.
kafka_shutdown() {
	local pid=$1 v up=0 all=0
	for v in ${KAFKA_QUORUM_VOTERS//,/ }; do
		all=$((all + 1))
		! port_open "$HOST" "${v##*:}" || up=$((up + 1))
	done
	((up <= all / 2)) || return 0
	log "kafka: $up of $all controllers up, no quorum to acknowledge a controlled shutdown: SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
	wait_gone "$pid" 10
}
