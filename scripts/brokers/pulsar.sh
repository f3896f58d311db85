# shellcheck shell=bash disable=SC2153 # the *_PORT variables are set in lib.sh
# Apache Pulsar recipe (sourced by lib.sh): Pulsar 4.0.7 standalone (broker + embedded bookie
# in one JVM) from the Maven Central jars pinned in brokers/pulsar/pom.xml (no distribution
# tarball is fetchable here), with pulsar-perf (pulsar-testclient 4.0.6) on the same classpath.
# Metadata in RocksDB under the data dir (no ZooKeeper), no functions worker (-nfw), no stream
# storage (-nss). Listeners, all on 127.0.0.1: the binary protocol PULSAR_PORT (6750), the
# admin REST API PULSAR_WEB_PORT (8180) and the bookie, at a free port it picks (listeningInterface
# lo; without it, 0.0.0.0). Not the in-JVM transport (enableLocalTransport): over it, reads from the
# bookie failed after a kill and restart under load (a read response arrived undecoded, "Received
# invalid response ... ByteBufList", IllegalReferenceCountException), the subscription's
# dispatcher retried the same entry every 15 s and its consumers received nothing again
# (TestBrokerKilledAndRestartedMidRun/pulsar, the broker short of CPU). The broker's own Pulsar
# client (health checks, system topics) resolves names through a UDP socket bound to 0.0.0.0
# unless told to bind 127.0.0.1 (brokerClient_dnsLookupBindAddress; it only ever resolves
# 127.0.0.1 here).

PULSAR_POM=$REPO/brokers/pulsar/pom.xml
# The jars (235 MB): PULSAR_LIB may name another state dir's copy, so a private instance
# (a test's own MQBENCH_STATE) need not copy them again.
: "${PULSAR_LIB:=$STATE/pulsar/lib}"
# The heap and the direct memory (Netty buffers, the bookie's write and read caches, the
# managed-ledger cache: each sized from MaxDirectMemorySize).
: "${PULSAR_HEAP_OPTS:=-Xms256m -Xmx1g -XX:MaxDirectMemorySize=512m}"

# TLS and token authentication, for the TLS test (extensions/itest/tls_pulsar_test.go; unset,
# nothing changes): with PULSAR_TLS_PORT, a TLS listener (brokerServicePortTls) with the
# broker's PEM certificate and PKCS#8 key (PULSAR_TLS_CERT, PULSAR_TLS_KEY) that requires a
# client certificate signed by PULSAR_TLS_CA; with PULSAR_TOKEN_SECRET_FILE (the HMAC key, raw
# bytes, 32 or more), token authentication on every port (AuthenticationProviderToken), the
# broker's own client and the readiness probe using PULSAR_ADMIN_TOKEN (a token for the super
# user "admin" signed with that key).

pulsar_stamp() { sha256sum <"$PULSAR_POM" | cut -c1-16; }

pulsar_installed() {
	command -v java >/dev/null && [[ $(cat "$PULSAR_LIB/.pom.stamp" 2>/dev/null) == "$(pulsar_stamp)" ]]
}

# ~3 min with nothing in ~/.m2 (317 jars, 235 MB), seconds after that.
pulsar_install() {
	need_cmd java openjdk-17-jre-headless # Pulsar 4.0 needs Java 17+
	need_cmd mvn maven
	state_dirs
	log "pulsar: copying jars pinned in $PULSAR_POM (~3 min when ~/.m2 is cold)"
	rm -rf "$PULSAR_LIB"
	mvn -B -q -f "$PULSAR_POM" dependency:copy-dependencies \
		-DoutputDirectory="$PULSAR_LIB" -DincludeScope=runtime >"$STATE/logs/pulsar-install.log" 2>&1 ||
		{ tail -n 30 "$STATE/logs/pulsar-install.log" >&2; return 1; }
	pulsar_stamp >"$PULSAR_LIB/.pom.stamp"
}

# The broker's and the embedded bookie's configuration (one file for both: the bookie reads
# the broker's). Written at every start: the ports may differ from the last one.
pulsar_conf() {
	cat <<-CONF
		clusterName=standalone
		bindAddress=$HOST
		advertisedAddress=$HOST
		brokerServicePort=$PULSAR_PORT
		webServicePort=$PULSAR_WEB_PORT
		managedLedgerDefaultEnsembleSize=1
		managedLedgerDefaultWriteQuorum=1
		managedLedgerDefaultAckQuorum=1
		allowAutoTopicCreationType=non-partitioned
		statusFilePath=
		httpServerEnabled=false
		listeningInterface=lo
		allowLoopback=true
		brokerClient_dnsLookupBindAddress=$HOST
	CONF
	if [[ -n ${PULSAR_TLS_PORT:-} ]]; then
		cat <<-CONF
			brokerServicePortTls=$PULSAR_TLS_PORT
			tlsCertificateFilePath=${PULSAR_TLS_CERT:?}
			tlsKeyFilePath=${PULSAR_TLS_KEY:?}
			tlsTrustCertsFilePath=${PULSAR_TLS_CA:?}
			tlsRequireTrustedClientCertOnConnect=true
			tlsAllowInsecureConnection=false
		CONF
	fi
	if [[ -n ${PULSAR_TOKEN_SECRET_FILE:-} ]]; then
		cat <<-CONF
			authenticationEnabled=true
			authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken
			tokenSecretKey=file://$PULSAR_TOKEN_SECRET_FILE
			superUserRoles=admin
			brokerClientAuthenticationPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken
			brokerClientAuthenticationParameters=token:${PULSAR_ADMIN_TOKEN:?}
		CONF
	fi
}

pulsar_launch() {
	local dir conf=$STATE/conf/pulsar.conf log4j=$STATE/conf/pulsar-log4j2.properties
	dir=$(data_dir pulsar)
	pulsar_conf >"$conf"
	# INFO to stdout, which spawn sends to the broker's log file.
	cat >"$log4j" <<-'L4J'
		status = error
		appender.console.type = Console
		appender.console.name = console
		appender.console.layout.type = PatternLayout
		appender.console.layout.pattern = %d{ISO8601} [%t] %-5level %logger{36} - %msg%n
		rootLogger.level = info
		rootLogger.appenderRef.console.ref = console
	L4J
	# shellcheck disable=SC2086 # PULSAR_HEAP_OPTS is a list of JVM flags
	spawn pulsar java $PULSAR_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=10 -Djava.awt.headless=true \
		-Dlog4j2.configurationFile="$log4j" \
		-cp "$PULSAR_LIB/*" org.apache.pulsar.PulsarStandaloneStarter --config "$conf" -nfw -nss \
		--metadata-dir "$dir/metadata" --bookkeeper-dir "$dir/bookkeeper"
}

# The port opens ~7 s before the broker serves: probe the health check (a round trip through
# the broker's own producer and reader on its heartbeat topic), which says "ok".
pulsar_probe() {
	local auth=()
	[[ -z ${PULSAR_ADMIN_TOKEN:-} ]] || auth=(-H "Authorization: Bearer $PULSAR_ADMIN_TOKEN")
	[[ $(curl -fsS -m 10 "${auth[@]}" "http://$HOST:$PULSAR_WEB_PORT/admin/v2/brokers/health" 2>/dev/null) == ok ]]
}

# After an unclean stop (kill.sh) the killed bookie's registration, an ephemeral node in the
# RocksDB metadata store, is still there. The new bookie deletes it and registers again, but
# now and then (about one start in two here, after a kill) the deletion's notification arrives
# after the new registration: the bookie's lock is invalidated, it registers again, and so on,
# thousands of times a second (1.5 cores and ~2 MB/s of log, for good; the broker still
# serves). A graceful stop removes the registration, so one stop and start ends it.
pulsar_lock_churn() { # registration-lock invalidations since the last start header
	tac "$(log_file pulsar)" | awk '/^=== /{exit} /ledgers\/available.*was invalidated/{n++} END{print n+0}'
}

pulsar_post_start() {
	local n pid
	n=$(pulsar_lock_churn)
	sleep 2
	(($(pulsar_lock_churn) - n < 20)) && return 0
	log "pulsar: bookie registration loop after an unclean stop; stopping and starting it once more"
	pid=$(broker_pid pulsar) || return 1
	kill -TERM "$pid"
	wait_gone "$pid" "${STOP_TIMEOUT:-30}" || { kill -KILL "$pid"; wait_gone "$pid" 10; }
	wait_ports_closed pulsar
	printf '=== %s: start pulsar (again: bookie registration loop)\n' "$(date -u +%FT%TZ)" >>"$(log_file pulsar)"
	pulsar_launch && wait_ready pulsar "${START_TIMEOUT:-120}"
}

pulsar_ports() { echo "$PULSAR_PORT $PULSAR_WEB_PORT${PULSAR_TLS_PORT:+ $PULSAR_TLS_PORT}"; }
pulsar_addr() { echo "$HOST:$PULSAR_PORT"; }
pulsar_comm() { echo java; }

# pulsar-perf (org.apache.pulsar.testclient.PulsarPerfTestTool) on the broker's jars; the
# first argument after the command is a client.conf naming this broker.
pulsar_perf() {
	local conf=$STATE/conf/pulsar-client.conf
	printf '%s\n' "webServiceUrl=http://$HOST:$PULSAR_WEB_PORT/" "brokerServiceUrl=pulsar://$HOST:$PULSAR_PORT/" >"$conf"
	java -Xms128m -Xmx512m -Dlog4j2.configurationFile="$STATE/conf/pulsar-log4j2.properties" \
		-cp "$PULSAR_LIB/*" org.apache.pulsar.testclient.PulsarPerfTestTool "$conf" "$@"
}
