# shellcheck shell=bash disable=SC2153 # the *_PORT variables are set in lib.sh
# Apache RocketMQ recipe (sourced by lib.sh): RocketMQ 5.3.3 from the Maven Central jars pinned
# in brokers/rocketmq/pom.xml (rocketmq-namesrv, rocketmq-broker, rocketmq-tools; no
# distribution zip), run by brokers/rocketmq/Server.java: RocketMQ's own NamesrvStartup, then
# BrokerStartup, in one JVM (one pid to stop or kill, one heap). One name server, one master
# broker (brokerId 0, ASYNC_MASTER, ASYNC_FLUSH unless ROCKETMQ_FLUSH_DISK_TYPE=SYNC_FLUSH),
# store in the data dir; topics and subscription groups are created on first use as well
# (the driver creates its topic through the broker's admin API anyway).
#
# Listeners, all on 127.0.0.1: the name server (ROCKETMQ_NAMESRV_PORT 9976), the broker
# (ROCKETMQ_PORT 11011), its "VIP" channel (ROCKETMQ_PORT - 2: RocketMQ derives it) and its HA
# port for slaves (ROCKETMQ_PORT + 1). RocketMQ's DefaultHAService binds that HA port on every
# interface and has no bind option, and duplicationEnable, the one setting that drops it, also
# stops delivery to consumers. So brokers/rocketmq/LoopbackHAService.java replaces it through
# RocketMQ's ServiceProvider hook (META-INF/service/org.apache.rocketmq.store.ha.HAService on
# the class path, which DefaultMessageStore consults before falling back to DefaultHAService):
# the same service, its accept socket moved to 127.0.0.1. scripts/brokers/listeners.sh rocketmq
# checks all four.

ROCKETMQ_DIR=$REPO/brokers/rocketmq
ROCKETMQ_HOME=$STATE/rocketmq # lib/ (jars), classes/ (Server, LoopbackHAService), home/, .stamp
# One heap for name server + broker; the broker's store maps its commit log (100 MB files
# here) outside the heap, and its direct buffers are capped too.
: "${ROCKETMQ_JAVA_MEMORY:=1g}"
: "${ROCKETMQ_FLUSH_DISK_TYPE:=ASYNC_FLUSH}"

rocketmq_stamp() {
	cat "$ROCKETMQ_DIR/pom.xml" "$ROCKETMQ_DIR"/*.java "$ROCKETMQ_DIR/META-INF/service/"* |
		sha256sum | cut -c1-16
}

rocketmq_installed() {
	command -v java >/dev/null &&
		[[ $(cat "$ROCKETMQ_HOME/.stamp" 2>/dev/null) == "$(rocketmq_stamp)" ]]
}

rocketmq_install() {
	need_cmd java openjdk-17-jre-headless
	need_cmd javac openjdk-17-jdk-headless
	need_cmd mvn maven
	state_dirs
	local ilog=$STATE/logs/rocketmq-install.log
	log "rocketmq: copying jars pinned in $ROCKETMQ_DIR/pom.xml, compiling Server.java and LoopbackHAService.java"
	rm -rf "${ROCKETMQ_HOME:?}/lib" "$ROCKETMQ_HOME/classes" "$ROCKETMQ_HOME/.stamp"
	{
		mvn -B -q -f "$ROCKETMQ_DIR/pom.xml" dependency:copy-dependencies \
			-DoutputDirectory="$ROCKETMQ_HOME/lib" -DincludeScope=runtime &&
			javac -d "$ROCKETMQ_HOME/classes" -cp "$ROCKETMQ_HOME/lib/*" \
				"$ROCKETMQ_DIR/Server.java" "$ROCKETMQ_DIR/LoopbackHAService.java" &&
			cp -r "$ROCKETMQ_DIR/META-INF" "$ROCKETMQ_HOME/classes/"
	} >"$ilog" 2>&1 || { tail -n 30 "$ilog" >&2; return 1; }
	rocketmq_stamp >"$ROCKETMQ_HOME/.stamp"
}

rocketmq_launch() {
	local dir conf=$STATE/conf
	dir=$(data_dir rocketmq)
	mkdir -p "$ROCKETMQ_HOME/home"
	cat >"$conf/rocketmq-namesrv.properties" <<-CONF
		listenPort=$ROCKETMQ_NAMESRV_PORT
		bindAddress=$HOST
		rocketmqHome=$ROCKETMQ_HOME
		kvConfigPath=$dir/namesrv/kvConfig.json
		configStorePath=$dir/namesrv/namesrv.properties
	CONF
	# waitTimeMillsInSendQueue: a send that waited longer than this in the broker's queue is
	# refused as "broker busy" (flow control, TIMEOUT_CLEAN_QUEUE). RocketMQ's 200 ms is met on
	# this 2-core machine while the JVM still compiles, with k6 and the tests beside it; so was
	# 1 s (the conformance suite's first 2,000 unpaced async sends, 1 run in 6 right after a
	# start: 847 queued, 1,004 ms). 2.5 s keeps flow control for real overload, and answers
	# before rocketmq-client-go's fixed 3 s request timeout gives up on the send.
	# brokerIP1 is the address the broker registers with the name server, which clients
	# then dial. haListenPort is RocketMQ's default (listenPort + 1), written out so the
	# port list below stays true.
	cat >"$conf/rocketmq-broker.properties" <<-CONF
		brokerClusterName=MqbenchCluster
		brokerName=broker-a
		brokerId=0
		brokerRole=ASYNC_MASTER
		flushDiskType=$ROCKETMQ_FLUSH_DISK_TYPE
		namesrvAddr=$HOST:$ROCKETMQ_NAMESRV_PORT
		brokerIP1=$HOST
		listenPort=$ROCKETMQ_PORT
		haListenPort=$((ROCKETMQ_PORT + 1))
		bindAddress=$HOST
		rocketmqHome=$ROCKETMQ_HOME
		storePathRootDir=$dir/store
		storePathCommitLog=$dir/store/commitlog
		mappedFileSizeCommitLog=104857600
		autoCreateTopicEnable=true
		autoCreateSubscriptionGroup=true
		maxMessageSize=4194304
		waitTimeMillsInSendQueue=2500
	CONF
	# ROCKETMQ_HOME must be set, or NamesrvStartup exits. user.home: RocketMQ logs to
	# ~/logs/rocketmqlogs and keeps some state under ~/store; both stay in the state dir.
	spawn rocketmq env ROCKETMQ_HOME="$ROCKETMQ_HOME" \
		java -Xms256m -Xmx"$ROCKETMQ_JAVA_MEMORY" -XX:MaxDirectMemorySize=512m \
		-Duser.home="$ROCKETMQ_HOME/home" -Dmqbench.ha.host="$HOST" "$ROCKETMQ_QUIET" \
		-cp "$ROCKETMQ_HOME/classes:$ROCKETMQ_HOME/lib/*" mqbench.Server \
		"$conf/rocketmq-namesrv.properties" "$conf/rocketmq-broker.properties"
}

# Ready = the broker booted ("The broker[...] boot success" among this start's log lines) and
# the name server routes to it. The broker registers with the name server only ~10 s after
# it prints boot success (its first heartbeat), and clients find nothing before that, so the
# second check asks the name server for the cluster (GET_BROKER_CLUSTER_INFO, request code
# 106, in RocketMQ's remoting framing: length, header length, JSON header) and wants a master
# (broker id 0) in the answer.
rocketmq_probe() {
	awk '/^=== .*: start rocketmq$/ { ok = 0 } /^The broker\[.*boot success/ { ok = 1 } END { exit !ok }' \
		"$(log_file rocketmq)" && rocketmq_registered
}

rocketmq_registered() {
	local hdr='{"code":106,"flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON","version":0}' n out
	n=${#hdr}
	out=$(
		exec 3<>"/dev/tcp/$HOST/$ROCKETMQ_NAMESRV_PORT" || exit 1
		# shellcheck disable=SC2059 # the format carries the frame's binary length prefix
		printf "\\x00\\x00\\x$(printf %02x $(((n + 4) >> 8)))\\x$(printf %02x $(((n + 4) & 255)))\\x00\\x00\\x$(printf %02x $((n >> 8)))\\x$(printf %02x $((n & 255)))%s" "$hdr" >&3
		timeout 3 dd bs=65536 count=1 status=none <&3 | tr -d '\0'
	) 2>/dev/null
	[[ $out == *'"brokerAddrs":{0:"'* ]]
}

rocketmq_ports() {
	echo "$ROCKETMQ_NAMESRV_PORT $ROCKETMQ_PORT $((ROCKETMQ_PORT - 2)) $((ROCKETMQ_PORT + 1))"
}
rocketmq_addr() { echo "$HOST:$ROCKETMQ_NAMESRV_PORT"; }
rocketmq_comm() { echo java; }

# RocketMQ's shaded logback prints its own configuration status to stdout at every start
# (hundreds of lines); this listener keeps it quiet. Logs still go to rocketmq/home/logs.
ROCKETMQ_QUIET=-Dlogback.statusListenerClass=org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener

# mqadmin (RocketMQ's MQAdminStartup) against this name server: rocketmq_admin SUBCOMMAND ARGS.
# A small JIT-light JVM starts faster; the time limit stops one that retries an absent broker.
rocketmq_admin() {
	env ROCKETMQ_HOME="$ROCKETMQ_HOME" timeout 120 java -Xmx256m -XX:TieredStopAtLevel=1 "$ROCKETMQ_QUIET" \
		-Duser.home="$ROCKETMQ_HOME/home" -cp "$ROCKETMQ_HOME/lib/*" \
		org.apache.rocketmq.tools.command.MQAdminStartup "$1" -n "$HOST:$ROCKETMQ_NAMESRV_PORT" "${@:2}"
}
