# shellcheck shell=bash disable=SC2034 # the variables set here are read by rabbitmq.sh and cluster.sh
# RabbitMQ cluster recipe for cluster.sh (sourced after lib.sh; hooks described in cluster.sh).
# Three nodes of the single node's recipe (rabbitmq.sh, Debian's 3.10). Node N: AMQP 5700+N,
# management 15700+N, prometheus 15790+N, Erlang distribution 25700+N (rabbitmq.sh: AMQP port
# + 20000), name rabbit-N@localhost (Go code reads node N from the digits before '@'). All
# share the machine's epmd (4369, started by the first Erlang node with ERL_EPMD_ADDRESS
# 127.0.0.1 and left running, as for the single node) and one Erlang cookie.
#
# Formation: classic config peer discovery, applied by a blank node at its first boot. Node 1
# lists no peer and boots standalone; nodes 2 and 3 list node 1 and join it during their own
# boot (no stop_app/join_cluster/start_app round, whose stop_app alone takes 5 s here). A blank
# node 1 must be fully up first: 3.10 lets a node join one that is still enabling its feature
# flags, and the joiner then dies on schema_integrity_check_failed (seen here with parallel
# starts). So a fresh cluster starts sequentially. A node with data (restart after kill, or all
# of them after `restart rabbitmq`) rejoins through its own database and waits for its peers:
# all at once (the default), since a node stopped before the others waits for them to boot.

[[ -d $STATE/cluster/rabbitmq/n1/data/rabbitmq/mnesia/rabbit-1@localhost ]] || CLUSTER_START=sequential
# Each node's stop waits ~5 s for its management plugin whatever the others do: in parallel
# the whole cluster stops in ~10 s instead of ~26 s.
CLUSTER_STOP=parallel

rabbitmq_amqp_port() { echo $((5700 + $1)); }
rabbitmq_mgmt_port() { echo $((15700 + $1)); }
rabbitmq_node_name() { echo "rabbit-$1@localhost"; }

# One cookie for every node, made once (the nodes may start in parallel: ln is atomic, the
# first one wins) and kept with the cluster's dir; rabbitmq.sh copies it to each node's HOME.
rabbitmq_cookie() {
	local f=$CLUSTER_DIR/erlang.cookie tmp
	if [[ ! -s $f ]]; then
		mkdir -p "$CLUSTER_DIR"
		tmp=$(mktemp "$CLUSTER_DIR/.cookie.XXXXXX")
		LC_ALL=C tr -dc '[:upper:]' </dev/urandom | head -c 32 >"$tmp" || true
		ln "$tmp" "$f" 2>/dev/null || true
		rm -f "$tmp"
	fi
	echo "$f"
}

# Per node memory: three VMs on this 24 GB machine, so an absolute alarm threshold (publishers
# blocked above it; RABBITMQ_CLUSTER_MEMORY) instead of the default 40% of RAM each. (The
# schedulers' busy-wait, bad for VMs sharing cores, is already off in RabbitMQ's own VM flags.)
rabbitmq_node_env() {
	local n=$1
	RABBITMQ_PORT=$(rabbitmq_amqp_port "$n") RABBITMQ_MGMT_PORT=$(rabbitmq_mgmt_port "$n")
	RABBITMQ_PROMETHEUS_PORT=$((15790 + n))
	RABBITMQ_NODE_NAME=$(rabbitmq_node_name "$n")
	RABBITMQ_COOKIE_FILE=$(rabbitmq_cookie)
	RABBITMQ_EXTRA_CONF="vm_memory_high_watermark.absolute = ${RABBITMQ_CLUSTER_MEMORY:-2GB}"
	((n == 1)) || RABBITMQ_EXTRA_CONF+="
cluster_formation.peer_discovery_backend = classic_config
cluster_formation.classic_config.nodes.1 = $(rabbitmq_node_name 1)
cluster_formation.discovery_retry_limit = 100
cluster_formation.discovery_retry_interval = 500"
}

# api N PATH [CURL_ARGS...]: node N's management API as guest (loopback only); fails unless 2xx.
rabbitmq_api() {
	local n=$1 path=$2
	shift 2
	curl -fsS -m 5 -u guest:guest -H 'content-type: application/json' "$@" \
		"http://$HOST:$(rabbitmq_mgmt_port "$n")/api$path" 2>/dev/null
}

# The running members as node N sees them (/api/nodes reads the cluster database: live).
rabbitmq_running() { rabbitmq_api "$1" /nodes | jq -r '[.[] | select(.running) | .name] | sort | join(",")'; }

# Formed = every node's management API lists all nodes running, and rabbitmqctl cluster_status
# on node 1 (the CLI's own view) agrees. The CLI boots a VM (~1 s of CPU), so it comes last,
# once the cheap checks pass.
rabbitmq_cluster_ready() {
	local n names=() want got views=() json
	for n in "${CLUSTER_NODES[@]}"; do names+=("$(rabbitmq_node_name "$n")"); done
	want=$(IFS=,; echo "${names[*]}")
	for n in "${CLUSTER_NODES[@]}"; do
		got=$(rabbitmq_running "$n") || got=unreachable
		views+=("n$n sees ${got:-none}")
		[[ $got == "$want" ]] || { echo "running nodes: ${views[*]}"; return 1; }
	done
	json=$(in_node 1 rabbitmqctl -q cluster_status --formatter json 2>/dev/null) &&
		got=$(jq -r '.running_nodes | sort | join(",")' <<<"$json") || got="no answer"
	[[ $got == "$want" ]] || { echo "rabbitmqctl cluster_status: running ${got:-none}"; return 1; }
	echo "${#names[@]} running nodes ($want) in every node's view and in rabbitmqctl cluster_status"
}

# One try of the round trip: the durable quorum queue Q declared through node 1 has a leader
# and a member on every node; a persistent message published through node 2 is got (and
# acked) through node 3. Prints the queue's placement.
rabbitmq_probe_once() {
	local q=$1 path="/queues/%2F/$1" info
	rabbitmq_api 1 "$path" -o /dev/null -X DELETE || true # an interrupted probe's
	rabbitmq_api 1 "$path" -o /dev/null -X PUT -d '{"durable":true,"arguments":{"x-queue-type":"quorum"}}' || return 1
	info=$(rabbitmq_api 1 "$path" | jq -r --argjson n "${#CLUSTER_NODES[@]}" \
		'select(.type == "quorum" and (.members | length) == $n and .leader != null) | "leader \(.leader), members \(.members | sort | join(","))"') &&
		[[ -n $info ]] || return 1
	rabbitmq_api 2 /exchanges/%2F/amq.default/publish \
		-d "{\"properties\":{\"delivery_mode\":2},\"routing_key\":\"$q\",\"payload\":\"probe\",\"payload_encoding\":\"string\"}" |
		jq -e .routed >/dev/null || return 1
	[[ $(rabbitmq_api 3 "$path/get" -d '{"count":1,"ackmode":"ack_requeue_false","encoding":"auto"}' |
		jq -r '.[0].payload // empty') == probe ]] || return 1
	echo "$info"
}

# Retried until CLUSTER_TIMEOUT (a young cluster may still be settling); the queue is deleted.
rabbitmq_cluster_probe() {
	local q=mqbench-cluster-probe t0 deadline info
	t0=$(now_us) deadline=$(($(now_us) + ${CLUSTER_TIMEOUT:-60} * 1000000))
	until info=$(rabbitmq_probe_once "$q"); do
		(($(now_us) < deadline)) || { log "rabbitmq: quorum queue probe failed for ${CLUSTER_TIMEOUT:-60}s"; return 1; }
		sleep 0.5
	done
	rabbitmq_api 1 "/queues/%2F/$q" -o /dev/null -X DELETE || true
	echo "rabbitmq quorum queue probe: $info; published through n2, got through n3 ($(since "$t0"))"
}

# leader QUEUE: the node number of the quorum queue's leader (vhost /), from the first node
# whose management API answers. The leader is the queue record's, which the new leader updates
# when it is elected: exit 1 while the named node is not running (an election not done).
rabbitmq_leader() {
	local n q out leader
	q=$(jq -rn --arg q "$1" '$q | @uri')
	for n in "${CLUSTER_NODES[@]}"; do
		out=$(curl -sS -m 5 -u guest:guest -w '\n%{http_code}' "http://$HOST:$(rabbitmq_mgmt_port "$n")/api/queues/%2F/$q" 2>/dev/null) || continue
		case ${out##*$'\n'} in
		200) ;;
		404) log "rabbitmq: queue $1 does not exist"; return 1 ;;
		*) continue ;;
		esac
		leader=$(jq -r '.leader // empty' <<<"${out%$'\n'*}")
		[[ $leader =~ ^rabbit-([0-9]+)@ ]] || { log "rabbitmq: queue $1 has no leader (${leader:-none}; not a quorum queue, or an election under way)"; return 1; }
		[[ ,$(rabbitmq_running "$n"), == *",$leader,"* ]] ||
			{ log "rabbitmq: queue $1: leader $leader is not running (election under way)"; return 1; }
		echo "${BASH_REMATCH[1]}"
		return 0
	done
	log "rabbitmq: no management API answers"
	return 1
}

rabbitmq_cluster_summary() {
	local n
	for n in "${CLUSTER_NODES[@]}"; do
		rabbitmq_running "$n" | sed "s/^/running nodes (n$n's view): /" && return 0
	done
	echo "running nodes: no management API answers"
}
