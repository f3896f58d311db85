# shellcheck shell=bash
# RabbitMQ recipe (sourced by lib.sh): Debian rabbitmq-server 3.10 (Erlang 25), run as root.
# /usr/sbin/rabbitmq-* switch to the rabbitmq user and drop the environment, so the scripts in
# /usr/lib/rabbitmq/bin are called directly with every path pointing into the state dir. The
# CLI tools find the node through the same environment (HOME holds the Erlang cookie).

RABBITMQ_BIN=/usr/lib/rabbitmq/bin

# Node names share the machine's epmd: a second node (other ports, other state dir) needs its
# own name, so only the default port gets the conventional rabbit@localhost.
# Cluster variables (cluster/rabbitmq.sh; unset, nothing changes): RABBITMQ_NODE_NAME (kept in
# conf/rabbitmq.node by the launch, so rabbitmqctl.sh finds the node later without it),
# RABBITMQ_COOKIE_FILE (copied to the node's HOME: one cookie for all nodes),
# RABBITMQ_EXTRA_CONF (lines appended to rabbitmq.conf), RABBITMQ_EXTRA_PLUGINS (more plugins,
# comma-separated: the TLS itest's rabbitmq_auth_mechanism_ssl).
rabbitmq_node() {
	if [[ -n ${RABBITMQ_NODE_NAME:-} ]]; then echo "$RABBITMQ_NODE_NAME"
	elif [[ -s $STATE/conf/rabbitmq.node ]]; then cat "$STATE/conf/rabbitmq.node"
	elif [[ $RABBITMQ_PORT == 5672 ]]; then echo rabbit@localhost
	else echo "rabbit-$RABBITMQ_PORT@localhost"; fi
}

# Each CLI call (rabbitmqctl, the probe, the shutdown) is a short-lived Erlang node listening
# for distribution on 35672-35682: RABBITMQ_CTL_ERL_ARGS keeps it on 127.0.0.1 (not 0.0.0.0).
rabbitmq_env() {
	local dir
	dir=$(data_dir rabbitmq)
	env HOME="$dir/home" \
		RABBITMQ_NODENAME="$(rabbitmq_node)" \
		RABBITMQ_NODE_IP_ADDRESS="$HOST" RABBITMQ_NODE_PORT="$RABBITMQ_PORT" \
		RABBITMQ_DIST_PORT=$((RABBITMQ_PORT + 20000)) \
		ERL_EPMD_ADDRESS="$HOST" \
		RABBITMQ_CONF_ENV_FILE="$STATE/conf/rabbitmq-env.conf" \
		RABBITMQ_CONFIG_FILE="$STATE/conf/rabbitmq.conf" \
		RABBITMQ_ADVANCED_CONFIG_FILE="$STATE/conf/rabbitmq-advanced.config" \
		RABBITMQ_ENABLED_PLUGINS_FILE="$STATE/conf/rabbitmq-plugins" \
		RABBITMQ_MNESIA_BASE="$dir/mnesia" \
		RABBITMQ_LOG_BASE="$STATE/logs" RABBITMQ_LOGS="$(log_file rabbitmq)" \
		RABBITMQ_PID_FILE="$(pid_file rabbitmq)" \
		ERL_CRASH_DUMP="$STATE/logs/rabbitmq-erl_crash.dump" \
		RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}${RABBITMQ_EMULATOR_FLAGS:+ $RABBITMQ_EMULATOR_FLAGS}" \
		RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
		"$@"
}
rabbitmqctl() { rabbitmq_env "$RABBITMQ_BIN/rabbitmqctl" "$@"; }

rabbitmq_installed() { [[ -x $RABBITMQ_BIN/rabbitmq-server ]]; }
rabbitmq_install() { apt_install rabbitmq-server; }

# Tuning for the AMQP 1.0 study (all off by default; the node then runs on RabbitMQ's defaults):
#   RABBITMQ_CREDIT_FLOW=INITIAL,MORE: rabbit's credit_flow_default_credit (default 400,200),
#     the internal flow control between a connection's processes and the queue; the study
#     raises it to 5000,2500 so that quorum queues batch more commands per fsync
#   RABBITMQ_METRICS_COLLECTOR=off: rabbitmq_management_agent's disable_metrics_collector (the
#     management API then has no rates nor queue depths: broker stats read less)
#   RABBITMQ_EMULATOR_FLAGS: Erlang emulator flags for the node, e.g. "+S 3" (3 schedulers)
# The first two go into the advanced.config file (Erlang terms), written at every launch.
rabbitmq_advanced_config() {
	local rabbit=() agent=()
	if [[ -n ${RABBITMQ_CREDIT_FLOW:-} ]]; then
		[[ $RABBITMQ_CREDIT_FLOW =~ ^([1-9][0-9]*),([1-9][0-9]*)$ ]] ||
			die "RABBITMQ_CREDIT_FLOW must be INITIAL,MORE (two positive integers, e.g. 5000,2500), got '$RABBITMQ_CREDIT_FLOW'"
		rabbit+=("{credit_flow_default_credit, {${BASH_REMATCH[1]}, ${BASH_REMATCH[2]}}}")
	fi
	case ${RABBITMQ_METRICS_COLLECTOR:-on} in
	on) ;;
	off) agent+=("{disable_metrics_collector, true}") ;;
	*) die "RABBITMQ_METRICS_COLLECTOR must be on or off, got '$RABBITMQ_METRICS_COLLECTOR'" ;;
	esac
	local apps=()
	((${#rabbit[@]} == 0)) || apps+=("{rabbit, [$(IFS=,; echo "${rabbit[*]}")]}")
	((${#agent[@]} == 0)) || apps+=("{rabbitmq_management_agent, [$(IFS=,; echo "${agent[*]}")]}")
	echo "[$(IFS=,; echo "${apps[*]}")]."
}

rabbitmq_launch() {
	mkdir -p "$(data_dir rabbitmq)/home"
	rabbitmq_advanced_config >"$STATE/conf/rabbitmq-advanced.config"
	: >"$STATE/conf/rabbitmq-env.conf" # instead of /etc/rabbitmq/rabbitmq-env.conf
	rm -f "$STATE/conf/rabbitmq.node"
	[[ -z ${RABBITMQ_NODE_NAME:-} ]] || echo "$RABBITMQ_NODE_NAME" >"$STATE/conf/rabbitmq.node"
	[[ -z ${RABBITMQ_COOKIE_FILE:-} ]] ||
		install -m 400 "$RABBITMQ_COOKIE_FILE" "$(data_dir rabbitmq)/home/.erlang.cookie"
	# rabbitmq_amqp1_0: AMQP 1.0 on the same port as AMQP 0-9-1 (the amqp10 driver);
	# rabbitmq_consistent_hash_exchange: exchange_type x-consistent-hash (routing by key);
	# rabbitmq_mqtt: MQTT 3.1.1 on RABBITMQ_MQTT_PORT (lib.sh: 1884 for the default node only;
	# anonymous MQTT clients act as guest, the plugin's default), for the mqtt driver.
	local mqtt=
	[[ -z ${RABBITMQ_MQTT_PORT:-} ]] || mqtt=",rabbitmq_mqtt"
	echo "[rabbitmq_management,rabbitmq_prometheus,rabbitmq_amqp1_0,rabbitmq_consistent_hash_exchange$mqtt${RABBITMQ_EXTRA_PLUGINS:+,$RABBITMQ_EXTRA_PLUGINS}]." >"$STATE/conf/rabbitmq-plugins"
	# guest/guest is allowed from loopback only, which is where every client is.
	# amqp1_0.default_user: an AMQP 1.0 client that authenticates with SASL ANONYMOUS acts as
	# guest (3.10's plugin; clients with user:password in the url use SASL PLAIN as usual).
	# log.syslog.transport: syslog is off, yet its library sends boot messages over UDP from a
	# socket bound to 0.0.0.0 (about 1 s per boot, seen by listeners.sh); over TCP (to
	# 127.0.0.1:514, where nothing listens) no socket stays bound.
	cat >"$STATE/conf/rabbitmq.conf" <<-CONF
		listeners.tcp.default = $HOST:$RABBITMQ_PORT
		management.tcp.ip = $HOST
		management.tcp.port = $RABBITMQ_MGMT_PORT
		prometheus.tcp.ip = $HOST
		prometheus.tcp.port = $RABBITMQ_PROMETHEUS_PORT
		amqp1_0.default_user = guest
		${RABBITMQ_MQTT_PORT:+mqtt.listeners.tcp.default = $HOST:$RABBITMQ_MQTT_PORT}
		log.console = false
		log.syslog.transport = tcp
		${RABBITMQ_EXTRA_CONF:-}
	CONF
	# -detached: the launcher returns at once; the node writes RABBITMQ_PID_FILE itself (our
	# pid file) early in its boot.
	rabbitmq_env "$RABBITMQ_BIN/rabbitmq-server" -detached </dev/null >>"$(log_file rabbitmq)" 2>&1
}

# The AMQP listener opens last in boot; await_startup confirms the app is running, and the
# management API answering guest/guest means the plugins are up too.
rabbitmq_probe() {
	rabbitmqctl -q await_startup --timeout 30 >/dev/null 2>&1 &&
		curl -fsS -m 5 -o /dev/null -u guest:guest "http://$HOST:$RABBITMQ_MGMT_PORT/api/overview"
}

# The node writes its pid without a newline; end it with one for `cat run/*.pid` users.
rabbitmq_post_start() { local f pid; f=$(pid_file rabbitmq); pid=$(cat "$f") && echo "$pid" >"$f"; }

# Graceful: stops the app, flushes queues, exits the VM (waits for the pid to go). epmd, which
# every Erlang node on the machine shares, is left running on purpose.
rabbitmq_shutdown() { rabbitmqctl -q shutdown --timeout 60 >/dev/null 2>&1; }

rabbitmq_ports() { echo "$RABBITMQ_PORT $RABBITMQ_MGMT_PORT $RABBITMQ_PROMETHEUS_PORT${RABBITMQ_MQTT_PORT:+ $RABBITMQ_MQTT_PORT}"; }
rabbitmq_addr() { echo "$HOST:$RABBITMQ_PORT"; }
rabbitmq_comm() { echo beam.smp; }
