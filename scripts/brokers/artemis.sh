# shellcheck shell=bash disable=SC2153 # the *_PORT variables are set in lib.sh
# ActiveMQ Artemis recipe (sourced by lib.sh): Artemis 2.44.0, the binary distribution from
# Maven Central (org.apache.activemq:apache-artemis:2.44.0:tar.gz:bin, fetched into ~/.m2 by
# the dependency plugin, like Kafka's jars), extracted under the state dir. One broker instance
# (`artemis create`) per data dir, so stop.sh removes it and kill/restart keep it; run in the
# foreground (`bin/artemis run` execs java) under spawn, so the pid file names the JVM.
#
# Listeners, all on 127.0.0.1: AMQP-only acceptor ARTEMIS_PORT (5673: RabbitMQ has 5672) and
# the all-protocols acceptor ARTEMIS_CORE_PORT (61617; 61616 is left to ActiveMQ Classic). No
# web console, no Jolokia, no JMX connector, no MQTT/STOMP/HornetQ acceptors.
#
# TLS, for the TLS tests (extensions/itest/tls_artemis_test.go; unset, nothing changes): with
# ARTEMIS_TLS_KEYSTORE (the broker's PEM private key and certificate in one file; Artemis reads
# it as keyStoreType=PEM) and ARTEMIS_TLS_CA (the PEM CA that signs client certificates), two
# more AMQP acceptors: ARTEMIS_TLS_PORT, TLS with the broker's certificate only (clients log
# in with user and password), and ARTEMIS_MTLS_PORT, TLS that requires a client certificate
# signed by that CA (needClientAuth); there the certificate is the login (a JAAS certificate
# domain: SASL EXTERNAL, or any mechanism, logs in the user mapped to the certificate's subject
# ARTEMIS_CERT_DN, e.g. "CN=mqbench client", with the test user's role).
#
# 2.44.0 is the newest complete distribution on Maven Central (see
# /work/shared/notes/brokers-measured.md); newer tarballs are missing.

ARTEMIS_VERSION=2.44.0
ARTEMIS_ARTIFACT=org.apache.activemq:apache-artemis:$ARTEMIS_VERSION:tar.gz:bin
# The distribution (extracted, ~60 MB): ARTEMIS_DIST may name another state dir's copy, so a
# private instance (a test's own MQBENCH_STATE) need not fetch and extract it again.
: "${ARTEMIS_DIST:=$STATE/artemis}"
ARTEMIS_HOME=$ARTEMIS_DIST/apache-artemis-$ARTEMIS_VERSION
: "${ARTEMIS_JAVA_MEMORY:=512M}"
# TEST CREDENTIALS ONLY: user mqbench, password mqbench-test (login required; no anonymous
# access), on loopback. Never reuse them for anything else.
ARTEMIS_USER=mqbench
ARTEMIS_PASSWORD=mqbench-test

artemis_instance() { echo "$(data_dir artemis)/instance"; }

artemis_installed() {
	command -v java >/dev/null && [[ -x $ARTEMIS_HOME/bin/artemis ]]
}

artemis_install() {
	need_cmd java openjdk-17-jre-headless # Artemis 2.4x needs Java 17+
	need_cmd mvn maven
	state_dirs
	# The local repository named, not assumed: Maven's default follows Java's user.home (the
	# passwd entry), which need not be $HOME.
	local repo=$HOME/.m2/repository
	local tgz=$repo/org/apache/activemq/apache-artemis/$ARTEMIS_VERSION/apache-artemis-$ARTEMIS_VERSION-bin.tar.gz
	log "artemis: fetching $ARTEMIS_ARTIFACT"
	mvn -B -q -Dmaven.repo.local="$repo" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:get -Dtransitive=false \
		-Dartifact="$ARTEMIS_ARTIFACT" >"$STATE/logs/artemis-install.log" 2>&1 ||
		{ tail -n 30 "$STATE/logs/artemis-install.log" >&2; return 1; }
	rm -rf "$ARTEMIS_DIST"
	mkdir -p "$ARTEMIS_DIST"
	tar xzf "$tgz" -C "$ARTEMIS_DIST"
}

artemis_launch() {
	local inst xml
	inst=$(artemis_instance)
	xml=$inst/etc/broker.xml
	if [[ ! -e $xml ]]; then
		# --nio: no libaio here; --no-autotune skips the disk benchmark; --no-web drops the
		# embedded web server (console, Jolokia).
		"$ARTEMIS_HOME/bin/artemis" create "$inst" --silent --user "$ARTEMIS_USER" \
			--password "$ARTEMIS_PASSWORD" --require-login --host "$HOST" --http-host "$HOST" \
			--no-web --no-mqtt-acceptor --no-stomp-acceptor --no-hornetq-acceptor --no-autotune \
			--nio --java-memory "$ARTEMIS_JAVA_MEMORY" </dev/null >>"$(log_file artemis)" 2>&1 ||
			{ log "artemis: artemis create $inst failed"; return 1; }
		# Auto-created queues and addresses go away once empty and without consumers (checked
		# every address-queue-scan-period, 30 s), so test and benchmark runs, whose driver
		# (amqp10, address plain) cannot delete a queue, leave nothing behind.
		sed -i -e 's|<auto-delete-queues>false<|<auto-delete-queues>true<|' \
			-e 's|<auto-delete-addresses>false<|<auto-delete-addresses>true<|' "$xml"
	fi
	# The acceptors' ports, (re)written at every start: the ports may differ from the last one.
	sed -i -E -e "s|(<acceptor name=\"artemis\">tcp://)[^:]+:[0-9]+|\\1$HOST:$ARTEMIS_CORE_PORT|" \
		-e "s|(<acceptor name=\"amqp\">tcp://)[^:]+:[0-9]+|\\1$HOST:$ARTEMIS_PORT|" "$xml"
	artemis_tls "$inst/etc"
	spawn artemis "$inst/bin/artemis" run
}

# The TLS acceptors and the certificate login (see the header), (re)written at every start;
# without ARTEMIS_TLS_KEYSTORE any left from an earlier start are removed.
artemis_tls() {
	local etc=$1 ssl
	sed -i -e '/<acceptor name="amqps/d' "$etc/broker.xml"
	sed -i -e 's| certificate-domain="cert"||' "$etc/bootstrap.xml"
	sed -i -e '/^cert {/,/^};/d' "$etc/login.config"
	[[ -n ${ARTEMIS_TLS_KEYSTORE:-} ]] || return 0
	ssl="protocols=AMQP;sslEnabled=true;keyStoreType=PEM;keyStorePath=$ARTEMIS_TLS_KEYSTORE;keyStorePassword=unused"
	sed -i -e "s|</acceptors>|<acceptor name=\"amqps\">tcp://$HOST:${ARTEMIS_TLS_PORT:?}?$ssl</acceptor>\
<acceptor name=\"amqps-mtls\">tcp://$HOST:${ARTEMIS_MTLS_PORT:?}?$ssl;needClientAuth=true;saslMechanisms=EXTERNAL,PLAIN;trustStoreType=PEM;trustStorePath=${ARTEMIS_TLS_CA:?};trustStorePassword=unused</acceptor>\
</acceptors>|" "$etc/broker.xml"
	# A connection with a client certificate logs in through the certificate domain.
	sed -i -e 's|<jaas-security domain="activemq"|& certificate-domain="cert"|' "$etc/bootstrap.xml"
	cat >>"$etc/login.config" <<-'JAAS'
		cert {
		   org.apache.activemq.artemis.spi.core.security.jaas.TextFileCertificateLoginModule required
		       reload=true
		       org.apache.activemq.jaas.textfiledn.user="cert-users.properties"
		       org.apache.activemq.jaas.textfiledn.role="cert-roles.properties";
		};
	JAAS
	printf '%s=%s\n' "$ARTEMIS_USER" "${ARTEMIS_CERT_DN:?}" >"$etc/cert-users.properties"
	printf 'amq=%s\n' "$ARTEMIS_USER" >"$etc/cert-roles.properties"
}

# One AMQP protocol-header exchange: the acceptor answers "AMQP" + its version only once the
# server is active.
artemis_probe() {
	local hdr
	hdr=$(
		exec 3<>"/dev/tcp/$HOST/$ARTEMIS_PORT" || exit 1
		printf 'AMQP\x03\x01\x00\x00' >&3
		timeout 3 head -c 4 <&3
	) 2>/dev/null && [[ $hdr == AMQP ]]
}

artemis_ports() {
	echo "$ARTEMIS_PORT $ARTEMIS_CORE_PORT${ARTEMIS_TLS_KEYSTORE:+ ${ARTEMIS_TLS_PORT:-} ${ARTEMIS_MTLS_PORT:-}}"
}
artemis_addr() { echo "$HOST:$ARTEMIS_PORT"; }
artemis_comm() { echo java; }
