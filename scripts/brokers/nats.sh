# shellcheck shell=bash
# NATS recipe (sourced by lib.sh). nats-server v2.15.2 built from the pinned tools module in
# brokers/nats (go.mod + go.sum); Debian's older nats-server 2.9 only when Go is missing.

NATS_MODULE=$REPO/brokers/nats

nats_go() { command -v go || { [[ -x /usr/local/go/bin/go ]] && echo /usr/local/go/bin/go; }; }

# Rebuild only when the pinned module changes: the stamp holds the hash of go.mod + go.sum.
nats_stamp() { cat "$NATS_MODULE/go.mod" "$NATS_MODULE/go.sum" | sha256sum | cut -c1-16; }

nats_bin() {
	if [[ -x $STATE/bin/nats-server ]] || nats_go >/dev/null; then
		echo "$STATE/bin/nats-server"
	else
		echo /usr/sbin/nats-server
	fi
}

nats_installed() {
	if nats_go >/dev/null; then
		[[ -x $STATE/bin/nats-server && $(cat "$STATE/bin/nats-server.stamp" 2>/dev/null) == "$(nats_stamp)" ]]
	else
		[[ -x /usr/sbin/nats-server ]]
	fi
}

nats_install() {
	local go
	if ! go=$(nats_go); then
		log "nats: no Go toolchain, falling back to Debian's nats-server"
		apt_install nats-server
		return
	fi
	state_dirs
	log "nats: building nats-server from $NATS_MODULE (pinned in go.mod)"
	# GOTOOLCHAIN=local: never try to download another toolchain (no such network here).
	(cd "$NATS_MODULE" && GOTOOLCHAIN=local "$go" build -trimpath \
		-o "$STATE/bin/nats-server.tmp" github.com/nats-io/nats-server/v2)
	mv "$STATE/bin/nats-server.tmp" "$STATE/bin/nats-server"
	nats_stamp >"$STATE/bin/nats-server.stamp"
}

# A cluster node (cluster.sh and cluster/nats.sh set these; unset, the single server is as it
# always was): NATS_CLUSTER_PORT its route listener, NATS_ROUTES the other nodes' route URLs
# (comma separated), NATS_SERVER_NAME the name JetStream reports as a stream's leader,
# NATS_CLUSTER_NAME the cluster's. Clustered JetStream needs all four.
# NATS_CONFIG: a server configuration file (tls {}, authorization {}) read before the flags
# below, for the TLS and authentication tests (extensions/itest/tls_nats_test.go).
# NATS_SYNC_ALWAYS=1: JetStream fsyncs after every write (server option sync_interval: always;
# default: a background fsync every 2 minutes), the commit-log study's "file, fsync on every
# message" setup. It exists only in the configuration file, so the launch writes one (after
# NATS_CONFIG's lines, when both are set). In-memory streams need no server setting: the
# scenario's nats.storage: memory declares the stream so.
# NATS_MQTT_PORT (lib.sh: 1885 for the default server only): the MQTT 3.1.1 listener (the mqtt
# driver's tests); it keeps its sessions and QoS 1 messages in JetStream streams ($MQTT_*).
nats_launch() {
	local cluster=() config=() conf
	# A configuration file only when a setting needs one: the MQTT listener (NATS_MQTT_PORT; it
	# needs JetStream, which -js turns on, and a server name), sync_interval, NATS_CONFIG's.
	if [[ ${NATS_SYNC_ALWAYS:-0} == 1 || -n ${NATS_MQTT_PORT:-} ]]; then
		conf=$STATE/conf/nats-$NATS_PORT.conf
		{
			[[ -z ${NATS_CONFIG:-} ]] || cat "$NATS_CONFIG"
			[[ ${NATS_SYNC_ALWAYS:-0} != 1 ]] || echo 'jetstream { sync_interval: always }'
			if [[ -n ${NATS_MQTT_PORT:-} ]]; then
				[[ -n ${NATS_SERVER_NAME:-} ]] || echo 'server_name: mqbench-nats'
				echo "mqtt { listen: \"$HOST:$NATS_MQTT_PORT\" }"
			fi
		} >"$conf"
		config=(-c "$conf")
	elif [[ -n ${NATS_CONFIG:-} ]]; then
		config=(-c "$NATS_CONFIG")
	fi
	[[ -z ${NATS_CLUSTER_PORT:-} ]] || cluster=(--cluster "nats://$HOST:$NATS_CLUSTER_PORT"
		--routes "${NATS_ROUTES:?}" -n "${NATS_SERVER_NAME:?}" --cluster_name "${NATS_CLUSTER_NAME:?}")
	spawn nats "$(nats_bin)" "${config[@]}" -a "$HOST" -p "$NATS_PORT" -m "$NATS_MONITOR_PORT" \
		-js -sd "$(data_dir nats)/jetstream" "${cluster[@]}"
}

# /healthz also reports JetStream's state, so "ok" means the store is usable too. A cluster
# node alone has no meta leader (that takes a quorum of nodes), so its own probe stops at its
# JetStream server; cluster.sh then waits for the cluster as a whole.
nats_probe() {
	curl -fsS -m 2 "http://$HOST:$NATS_MONITOR_PORT/healthz${NATS_CLUSTER_PORT:+?js-server-only=true}" >/dev/null 2>&1
}
nats_ports() { echo "$NATS_PORT $NATS_MONITOR_PORT${NATS_CLUSTER_PORT:+ $NATS_CLUSTER_PORT}${NATS_MQTT_PORT:+ $NATS_MQTT_PORT}"; }
nats_addr() { echo "$HOST:$NATS_PORT"; }
nats_comm() { echo nats-server; }
