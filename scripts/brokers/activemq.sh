# shellcheck shell=bash disable=SC2153 # the *_PORT variables are set in lib.sh
# ActiveMQ Classic recipe (sourced by lib.sh): ActiveMQ 6.1.7 embedded in a small Java main,
# brokers/activemq/Broker.java, run from the jars pinned in brokers/activemq/pom.xml (no
# apache-activemq tarball is fetchable here; Debian's activemq 5.17 has no proton-j, so no
# AMQP). Persistent (KahaDB in the data dir, so stop.sh removes it and kill/restart keep it),
# no JMX, no advisory topics, login required; the statistics plugin answers on the AMQP
# connector (the amqp10 driver reads a queue's exact depth with it: no web console or Jolokia,
# no further listener). Run in the foreground under spawn: the pid file names the JVM.
#
# Listeners: AMQP 1.0 on ACTIVEMQ_PORT (5674: RabbitMQ has 5672, Artemis 5673) and OpenWire on
# ACTIVEMQ_OPENWIRE_PORT (61616), both on 127.0.0.1 only; nothing else listens (checked with
# `ss -ltnup`, and by scripts/brokers/listeners.sh in make test).
# With ACTIVEMQ_TLS_PORT (and ACTIVEMQ_TLS_CERT, ACTIVEMQ_TLS_KEY, ACTIVEMQ_TLS_CA: PEM files,
# the key in PKCS#8), one more: AMQP over TLS requiring a client certificate signed by that CA,
# for the TLS test (extensions/itest/tls_activemq_test.go).

ACTIVEMQ_DIR=$REPO/brokers/activemq
# lib/ (jars), classes/ (Broker.class), .stamp. ACTIVEMQ_HOME may name another state dir's
# build, so a private instance (a test's own MQBENCH_STATE) need not copy and compile again;
# it must be current (its .stamp), or the install here replaces it.
: "${ACTIVEMQ_HOME:=$STATE/activemq}"
: "${ACTIVEMQ_JAVA_MEMORY:=512M}"
# TEST CREDENTIALS ONLY: user mqbench, password mqbench-test (login required; anonymous
# refused), on loopback. Never reuse them for anything else. Broker.java reads them from its
# environment, so the password is not on its command line.
ACTIVEMQ_USER=mqbench
ACTIVEMQ_PASSWORD=mqbench-test

# Rebuild only when the pom or the main class change.
activemq_stamp() { cat "$ACTIVEMQ_DIR/pom.xml" "$ACTIVEMQ_DIR/Broker.java" | sha256sum | cut -c1-16; }

activemq_installed() {
	command -v java >/dev/null &&
		[[ $(cat "$ACTIVEMQ_HOME/.stamp" 2>/dev/null) == "$(activemq_stamp)" ]]
}

activemq_install() {
	need_cmd java openjdk-17-jre-headless # ActiveMQ 6.x needs Java 17+
	need_cmd javac openjdk-17-jdk-headless
	need_cmd mvn maven
	state_dirs
	local ilog=$STATE/logs/activemq-install.log
	log "activemq: copying jars pinned in $ACTIVEMQ_DIR/pom.xml, compiling Broker.java"
	rm -rf "$ACTIVEMQ_HOME"
	{
		mvn -B -q -f "$ACTIVEMQ_DIR/pom.xml" dependency:copy-dependencies \
			-DoutputDirectory="$ACTIVEMQ_HOME/lib" -DincludeScope=runtime &&
			javac -d "$ACTIVEMQ_HOME/classes" -cp "$ACTIVEMQ_HOME/lib/*" "$ACTIVEMQ_DIR/Broker.java"
	} >"$ilog" 2>&1 || { tail -n 30 "$ilog" >&2; return 1; }
	activemq_stamp >"$ACTIVEMQ_HOME/.stamp"
}

activemq_launch() {
	spawn activemq env ACTIVEMQ_USER="$ACTIVEMQ_USER" ACTIVEMQ_PASSWORD="$ACTIVEMQ_PASSWORD" \
		ACTIVEMQ_TLS_PORT="${ACTIVEMQ_TLS_PORT:-}" ACTIVEMQ_TLS_CERT="${ACTIVEMQ_TLS_CERT:-}" \
		ACTIVEMQ_TLS_KEY="${ACTIVEMQ_TLS_KEY:-}" ACTIVEMQ_TLS_CA="${ACTIVEMQ_TLS_CA:-}" \
		java -Xmx"$ACTIVEMQ_JAVA_MEMORY" -Dorg.slf4j.simpleLogger.showDateTime=true \
		-Dorg.slf4j.simpleLogger.dateTimeFormat="yyyy-MM-dd'T'HH:mm:ss.SSS" \
		-cp "$ACTIVEMQ_HOME/classes:$ACTIVEMQ_HOME/lib/*" Broker \
		"$(data_dir activemq)" "$HOST" "$ACTIVEMQ_OPENWIRE_PORT" "$ACTIVEMQ_PORT"
}

# One AMQP protocol-header exchange. The ports accept TCP ~0.5 s before the broker is ready
# (bound early, accepted later); the header is answered only once the AMQP connector, which
# Broker.java starts last, runs, and a full SASL PLAIN open right after it succeeded every time.
activemq_probe() {
	local hdr
	hdr=$(
		exec 3<>"/dev/tcp/$HOST/$ACTIVEMQ_PORT" || exit 1
		printf 'AMQP\x03\x01\x00\x00' >&3
		timeout 3 head -c 4 <&3
	) 2>/dev/null && [[ $hdr == AMQP ]]
}

activemq_ports() { echo "$ACTIVEMQ_PORT $ACTIVEMQ_OPENWIRE_PORT${ACTIVEMQ_TLS_PORT:+ $ACTIVEMQ_TLS_PORT}"; }
activemq_addr() { echo "$HOST:$ACTIVEMQ_PORT"; }
activemq_comm() { echo java; }
