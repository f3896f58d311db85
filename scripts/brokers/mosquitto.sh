# shellcheck shell=bash
# Mosquitto recipe (sourced by lib.sh): Debian mosquitto 2.0 (MQTT 5, 3.1.1 and 3.1), on
# MOSQUITTO_PORT, anonymous clients allowed, with persistence: sessions, subscriptions and
# queued QoS 1/2 messages are written to the data dir at a graceful stop (and every
# MOSQUITTO_AUTOSAVE seconds), so a restart keeps what the broker acknowledged. A crash (kill
# -9) loses what changed since the last save: Mosquitto's persistence is a snapshot, not a log.
# max_queued_messages: Mosquitto drops QoS 1/2 messages beyond 1,000 queued for one client by
# default; a benchmark's consumer behind by more would then see loss the broker chose, so the
# queue is bounded by memory instead (scripts/brokers/README.md).
# MOSQUITTO_CONF_EXTRA: lines appended to the configuration (a private instance's TLS listener
# or password_file in the driver's tests).

mosquitto_installed() { command -v mosquitto >/dev/null && command -v mosquitto_passwd >/dev/null; }
mosquitto_install() { apt_install mosquitto mosquitto-clients; }

mosquitto_launch() {
	local conf=$STATE/conf/mosquitto-$MOSQUITTO_PORT.conf
	cat >"$conf" <<-CONF
		listener $MOSQUITTO_PORT $HOST
		allow_anonymous ${MOSQUITTO_ANONYMOUS:-true}
		persistence true
		persistence_location $(data_dir mosquitto)/
		autosave_interval ${MOSQUITTO_AUTOSAVE:-1800}
		max_queued_messages 0
		log_dest stdout
		log_type error
		log_type warning
		log_type notice
		${MOSQUITTO_CONF_EXTRA:-}
	CONF
	# mosquitto drops root rights to user mosquitto unless told otherwise; the data dir is ours.
	grep -q '^user ' "$conf" || echo "user root" >>"$conf"
	spawn mosquitto mosquitto -c "$conf"
}

# A round trip through the broker: subscribe, publish one retained-free message, receive it.
mosquitto_probe() {
	[[ -n ${MOSQUITTO_CONF_EXTRA:-} ]] && { port_open "$HOST" "$MOSQUITTO_PORT"; return; }
	mosquitto_pub -h "$HOST" -p "$MOSQUITTO_PORT" -q 1 -t mqbench/probe -m ping -i "mqbench-probe-$$" >/dev/null 2>&1
}
mosquitto_ports() { echo "$MOSQUITTO_PORT"; }
mosquitto_addr() { echo "$HOST:$MOSQUITTO_PORT"; }
mosquitto_comm() { echo mosquitto; }
