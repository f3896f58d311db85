# shellcheck shell=bash disable=SC2153 # the *_PORT variables are set in lib.sh
# ElasticMQ recipe (sourced by lib.sh): an SQS-compatible queue server (Scala, Pekko HTTP),
# org.elasticmq:elasticmq-server_2.13:1.7.1 from the jars pinned in brokers/elasticmq/pom.xml,
# run as `java -cp 'lib/*' org.elasticmq.server.Main` in the foreground under spawn (the pid
# file names the JVM). Queues live in memory (nothing in the data dir); sqs-limits = strict, so
# message size (256 KiB), batch sizes (10), names and attribute ranges are checked as SQS does.
#
# Listener: the SQS API (query and JSON protocols over HTTP) on ELASTICMQ_PORT (9424; its own
# default is 0.0.0.0:9324), 127.0.0.1 only; nothing else listens (checked with `ss -ltnp`, and by
# scripts/brokers/listeners.sh in make test). ElasticMQ checks no credentials: clients sign with
# any access key (the tests export dummy AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY).

ELASTICMQ_DIR=$REPO/brokers/elasticmq
ELASTICMQ_HOME=$STATE/elasticmq # lib/ (jars), .stamp
: "${ELASTICMQ_JAVA_MEMORY:=256M}"

# Recopy the jars only when the pom changes.
elasticmq_stamp() { sha256sum <"$ELASTICMQ_DIR/pom.xml" | cut -c1-16; }

elasticmq_installed() {
	command -v java >/dev/null &&
		[[ $(cat "$ELASTICMQ_HOME/.stamp" 2>/dev/null) == "$(elasticmq_stamp)" ]]
}

elasticmq_install() {
	need_cmd java openjdk-17-jre-headless
	need_cmd mvn maven
	state_dirs
	local ilog=$STATE/logs/elasticmq-install.log
	log "elasticmq: copying jars pinned in $ELASTICMQ_DIR/pom.xml"
	rm -rf "$ELASTICMQ_HOME"
	mvn -B -q -f "$ELASTICMQ_DIR/pom.xml" dependency:copy-dependencies \
		-DoutputDirectory="$ELASTICMQ_HOME/lib" -DincludeScope=runtime >"$ilog" 2>&1 ||
		{ tail -n 30 "$ilog" >&2; return 1; }
	elasticmq_stamp >"$ELASTICMQ_HOME/.stamp"
}

# The config binds the REST (SQS) interface to loopback and makes queue URLs name it
# (node-address); no queues are predefined: mqbench's driver creates and deletes its own.
elasticmq_conf() {
	local f=$STATE/conf/elasticmq.conf
	cat >"$f" <<CONF
include classpath("application.conf")
node-address { protocol = "http", host = "$HOST", port = $ELASTICMQ_PORT, context-path = "" }
rest-sqs { enabled = true, bind-port = $ELASTICMQ_PORT, bind-hostname = "$HOST", sqs-limits = strict }
generate-node-address = false
CONF
	echo "$f"
}

elasticmq_launch() {
	local conf
	conf=$(elasticmq_conf)
	spawn elasticmq java -Xmx"$ELASTICMQ_JAVA_MEMORY" -Dconfig.file="$conf" \
		-cp "$ELASTICMQ_HOME/lib/*" org.elasticmq.server.Main
}

# One SQS call (ListQueues, query protocol, unsigned: ElasticMQ checks no signature); the port
# opens before the REST routes answer.
elasticmq_probe() {
	curl -fsS -m 2 "http://$HOST:$ELASTICMQ_PORT/?Action=ListQueues" 2>/dev/null | grep -q ListQueuesResponse
}

elasticmq_ports() { echo "$ELASTICMQ_PORT"; }
elasticmq_addr() { echo "$HOST:$ELASTICMQ_PORT"; }
elasticmq_comm() { echo java; }
