# shellcheck shell=bash disable=SC2153 # the *_PORT variables are set in lib.sh
# Kafka recipe (sourced by lib.sh): Kafka 4.3.1 from the Maven Central jars pinned in
# brokers/kafka/pom.xml, single KRaft node (broker + controller), run with `java -cp lib/*`.

KAFKA_POM=$REPO/brokers/kafka/pom.xml
KAFKA_LIB=$STATE/kafka/lib
: "${KAFKA_HEAP_OPTS:=-Xms512m -Xmx1g}"
# The SASL_PLAINTEXT listener: 9094 by default, KAFKA_PORT+2 for an instance on other ports
# (so a private instance that only sets KAFKA_PORT cannot collide with the shared one).
: "${KAFKA_SASL_PORT:=$((KAFKA_PORT + 2))}"
# TEST CREDENTIALS ONLY, for the wrong-credentials tests: user mqbench, password
# mqbench-secret, accepted with SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 on the SASL
# listener (127.0.0.1 only). Never reuse them for anything else.
KAFKA_SASL_USER=mqbench
KAFKA_SASL_PASSWORD=mqbench-secret

kafka_stamp() { sha256sum <"$KAFKA_POM" | cut -c1-16; }

kafka_installed() {
	command -v java >/dev/null && [[ $(cat "$KAFKA_LIB/.pom.stamp" 2>/dev/null) == "$(kafka_stamp)" ]]
}

kafka_install() {
	need_cmd java openjdk-17-jre-headless # Kafka 4.x brokers need Java 17+
	need_cmd mvn maven
	state_dirs
	log "kafka: copying jars pinned in $KAFKA_POM"
	rm -rf "$KAFKA_LIB"
	mvn -B -q -f "$KAFKA_POM" dependency:copy-dependencies \
		-DoutputDirectory="$KAFKA_LIB" -DincludeScope=runtime >"$STATE/logs/kafka-install.log" 2>&1 ||
		{ tail -n 30 "$STATE/logs/kafka-install.log" >&2; return 1; }
	kafka_stamp >"$KAFKA_LIB/.pom.stamp"
}

# Kafka CLI classes log warnings only, to stderr, so their stdout stays clean.
KAFKA_TOOL_OPTS=(-Dmqbench.log.level=WARN -Dmqbench.log.target=SYSTEM_ERR
	-Dlog4j2.configurationFile="$REPO/brokers/kafka/log4j2.xml")
kafka_tool() { java "${KAFKA_TOOL_OPTS[@]}" -cp "$KAFKA_LIB/*" "$@"; }

# The scripts' own short tool runs: a small JIT-light JVM starts faster, and the time limit
# stops a tool that would retry an absent broker for minutes.
kafka_quick() {
	timeout 60 java -Xmx256m -XX:TieredStopAtLevel=1 "${KAFKA_TOOL_OPTS[@]}" -cp "$KAFKA_LIB/*" "$@"
}

# A cluster id: 16 random bytes in URL-safe base64 (making it here saves a JVM start of
# StorageTool random-uuid). One starting with "-" would be read as an option by the tools'
# argument parser, so it is drawn again, as Kafka's own Uuid.randomUuid does.
kafka_random_id() {
	local id=-
	while [[ $id == -* ]]; do id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='); done
	echo "$id"
}

# A cluster node (cluster.sh and cluster/kafka.sh set these; unset, the single node is as it
# always was): KAFKA_NODE_ID its node.id (1), KAFKA_QUORUM_VOTERS every controller as
# id@host:port,... (this node's alone), KAFKA_CLUSTER_ID the id all nodes' storage is formatted
# with (a random one per data dir), KAFKA_REPLICATION the replication factor of new and
# internal topics (1), with min.insync.replicas one less (at least 1).
# KAFKA_SSL_PORT (with KAFKA_TLS_KEYSTORE, the broker's PEM key and certificate in one file,
# and KAFKA_TLS_CA, the PEM CA that signs clients): one more listener, SASL_SSL, that requires
# a client certificate and SCRAM, for the TLS tests (extensions/itest/tls_kafka_test.go).
kafka_launch() {
	local conf=$STATE/conf/kafka.properties dir id rf=${KAFKA_REPLICATION:-1} isr
	local ssl_listener='' ssl_map=''
	if [[ -n ${KAFKA_SSL_PORT:-} ]]; then
		ssl_listener=,SASL_SSL://$HOST:$KAFKA_SSL_PORT ssl_map=,SASL_SSL:SASL_SSL
	fi
	dir=$(data_dir kafka)
	isr=$((rf > 1 ? rf - 1 : 1))
	# Every topic, internal ones too, with replication factor $rf (1 on a single node), no
	# unclean election; consumer groups start at once instead of waiting 3 s for more members.
	# Clients use PLAINTEXT (no authentication) or SASL_PLAINTEXT (the test user above; PLAIN
	# from the JAAS line, SCRAM from the users stored at format time).
	cat >"$conf" <<-CONF
		process.roles=broker,controller
		node.id=${KAFKA_NODE_ID:-1}
		controller.quorum.voters=${KAFKA_QUORUM_VOTERS:-1@$HOST:$KAFKA_CONTROLLER_PORT}
		listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT,SASL_PLAINTEXT://$HOST:$KAFKA_SASL_PORT$ssl_listener
		advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT,SASL_PLAINTEXT://$HOST:$KAFKA_SASL_PORT$ssl_listener
		controller.listener.names=CONTROLLER
		inter.broker.listener.name=PLAINTEXT
		listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT$ssl_map
		sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
		listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$KAFKA_SASL_USER="$KAFKA_SASL_PASSWORD";
		listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
		listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
		log.dirs=$dir
		default.replication.factor=$rf
		min.insync.replicas=$isr
		unclean.leader.election.enable=false
		offsets.topic.replication.factor=$rf
		transaction.state.log.replication.factor=$rf
		transaction.state.log.min.isr=$isr
		share.coordinator.state.topic.replication.factor=$rf
		share.coordinator.state.topic.min.isr=$isr
		group.initial.rebalance.delay.ms=0
	CONF
	if [[ -n ${KAFKA_SSL_PORT:-} ]]; then
		cat >>"$conf" <<-CONF
			listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
			listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
			listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
			listener.name.sasl_ssl.ssl.client.auth=required
			listener.name.sasl_ssl.ssl.keystore.type=PEM
			listener.name.sasl_ssl.ssl.keystore.location=${KAFKA_TLS_KEYSTORE:?}
			listener.name.sasl_ssl.ssl.truststore.type=PEM
			listener.name.sasl_ssl.ssl.truststore.location=${KAFKA_TLS_CA:?}
		CONF
	fi
	# Format the storage once per data dir (kept across kill/restart). The SCRAM credentials of
	# the test user are stored in the metadata log at format time (a data dir formatted before
	# they were added has none: stop.sh, then start.sh).
	if [[ ! -e $dir/meta.properties ]]; then
		id=${KAFKA_CLUSTER_ID:-$(kafka_random_id)}
		kafka_quick kafka.tools.StorageTool format -t "$id" -c "$conf" \
			--add-scram "SCRAM-SHA-256=[name=$KAFKA_SASL_USER,password=$KAFKA_SASL_PASSWORD]" \
			--add-scram "SCRAM-SHA-512=[name=$KAFKA_SASL_USER,password=$KAFKA_SASL_PASSWORD]" \
			>>"$(log_file kafka)" 2>&1 ||
			{ log "kafka: formatting $dir failed"; return 1; }
	fi
	# shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of JVM flags
	spawn kafka java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
		-Dlog4j2.configurationFile="$REPO/brokers/kafka/log4j2.xml" -cp "$KAFKA_LIB/*" \
		kafka.Kafka "$conf"
}

# An open port is not enough: the broker must answer a metadata request. Short client timeouts
# so that a broker that died meanwhile fails this attempt in seconds, not after a minute.
kafka_probe() {
	printf '%s\n' request.timeout.ms=5000 default.api.timeout.ms=10000 >"$STATE/conf/kafka-probe.properties"
	kafka_quick org.apache.kafka.tools.TopicCommand --bootstrap-server "$HOST:$KAFKA_PORT" \
		--command-config "$STATE/conf/kafka-probe.properties" --list >/dev/null 2>&1
}

# An instance started before the SASL listener existed (its ports file, written before launch,
# has no KAFKA_SASL_PORT) is judged by the ports it really has, so status/start/stop keep
# working on it until its next start.
kafka_ports() {
	local f=$STATE/run/kafka.ports
	if [[ -e $f ]] && ! grep -q '^KAFKA_SASL_PORT=' "$f"; then
		echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT"
	else
		echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT $KAFKA_SASL_PORT${KAFKA_SSL_PORT:+ $KAFKA_SSL_PORT}"
	fi
}
kafka_addr() { echo "$HOST:$KAFKA_PORT"; }
kafka_comm() { echo java; }
