# shellcheck shell=bash
# Shared helpers for scripts/brokers/*.sh — sourced, never run.
#
# Layout of the state dir (default $REPO/.cache/brokers, override with MQBENCH_STATE):
#   bin/      built binaries (nats-server, nsqd) run/   BROKER.pid (only processes we started)
#   conf/     generated config files             logs/  BROKER.log (appended, one header per start)
#   data/BROKER/  broker data: kept by kill.sh/restart.sh, removed by stop.sh
#   kafka/lib/    Kafka jars copied from Maven Central
#   artemis/      the Artemis distribution (tarball from Maven Central via ~/.m2), extracted
#   activemq/     ActiveMQ Classic: lib/ (jars pinned in brokers/activemq/pom.xml), classes/
#   elasticmq/    ElasticMQ (SQS): lib/ (jars pinned in brokers/elasticmq/pom.xml)
#   pulsar/lib/   Pulsar jars (brokers/pulsar/pom.xml) copied from Maven Central
#
# Each broker's recipe is scripts/brokers/BROKER.sh, defining:
#   BROKER_installed  BROKER_install  BROKER_launch (start in background, write pid file unless
#   the broker writes it itself)  BROKER_probe (one readiness check)  BROKER_ports  BROKER_addr
#   BROKER_comm (process name, to tell our pid from a reused one)
# and optionally BROKER_post_start, BROKER_shutdown (graceful stop other than SIGTERM).

BROKERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BROKERS_DIR/../.." && pwd)
STATE=${MQBENCH_STATE:-$REPO/.cache/brokers}
HOST=127.0.0.1 # everything binds to loopback only
ALL_BROKERS=(nats redis rabbitmq kafka influxdb prometheus artemis activemq nsq mosquitto postgres ferretdb elasticmq rocketmq pulsar)
# shellcheck disable=SC2034 # read by the entry scripts
BROKERS=() # the brokers named on the command line, see expand_brokers

# The ports a broker was started with (run/BROKER.ports, kept until stop.sh) come before the
# defaults, so status/stop/kill/restart find it without repeating the env; an env var set
# explicitly wins over both.
for _f in "$STATE"/run/*.ports; do
	[[ -e $_f ]] || continue
	while IFS='=' read -r _k _v; do
		[[ $_k =~ ^[A-Z_]+_PORT$ && -z ${!_k:-} ]] && printf -v "$_k" '%s' "$_v"
	done <"$_f"
done
unset _f _k _v

: "${NATS_PORT:=4222}" "${NATS_MONITOR_PORT:=8222}"
# The MQTT listeners of NATS and RabbitMQ: on by default for the default server only (client
# port 4222 / 5672), so that private servers and cluster nodes on other ports do not collide.
[[ $NATS_PORT != 4222 ]] || : "${NATS_MQTT_PORT:=1885}"
: "${REDIS_PORT:=6379}"
: "${RABBITMQ_PORT:=5672}" "${RABBITMQ_MGMT_PORT:=15672}" "${RABBITMQ_PROMETHEUS_PORT:=15692}"
[[ $RABBITMQ_PORT != 5672 ]] || : "${RABBITMQ_MQTT_PORT:=1884}"
: "${KAFKA_PORT:=9092}" "${KAFKA_CONTROLLER_PORT:=9093}"
: "${INFLUXDB_PORT:=8086}" "${INFLUXDB_RPC_PORT:=8088}"
: "${PROMETHEUS_PORT:=9090}"
: "${ARTEMIS_PORT:=5673}" "${ARTEMIS_CORE_PORT:=61617}"
: "${ACTIVEMQ_PORT:=5674}" "${ACTIVEMQ_OPENWIRE_PORT:=61616}"
: "${NSQ_PORT:=4250}" "${NSQ_HTTP_PORT:=4251}"
: "${MOSQUITTO_PORT:=1883}"
: "${POSTGRES_PORT:=5532}"
: "${FERRETDB_PORT:=27117}" "${FERRETDB_DEBUG_PORT:=28088}"
: "${ELASTICMQ_PORT:=9424}"
: "${ROCKETMQ_PORT:=11011}" "${ROCKETMQ_NAMESRV_PORT:=9976}"
: "${PULSAR_PORT:=6750}" "${PULSAR_WEB_PORT:=8180}"

# shellcheck disable=SC1090 # the recipe files next to this one
for _b in "${ALL_BROKERS[@]}"; do source "$BROKERS_DIR/$_b.sh"; done
unset _b

log() { printf '[brokers] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Microseconds since the epoch, without forking (EPOCHREALTIME's separator follows the locale).
now_us() { echo "${EPOCHREALTIME//[.,]/}"; }
since() { local us=$(($(now_us) - $1)); printf '%d.%ds' $((us / 1000000)) $((us % 1000000 / 100000)); }

check_broker() {
	local b
	for b in "${ALL_BROKERS[@]}"; do [[ $1 == "$b" ]] && return 0; done
	die "unknown broker '$1' (known: ${ALL_BROKERS[*]})"
}

# Sets BROKERS from the arguments: "all" or nothing means every broker; names are checked
# (here, not in a $(...) subshell, so that a typo stops the script).
# shellcheck disable=SC2034
expand_brokers() {
	local b
	if [[ $# -eq 0 || $* == all ]]; then
		BROKERS=("${ALL_BROKERS[@]}")
	else
		for b; do check_broker "$b"; done
		BROKERS=("$@")
	fi
}

state_dirs() {
	mkdir -p "$STATE"/{bin,conf,data,logs,run}
	# Keep the cache out of git even where the repo's .gitignore does not cover it.
	[[ -e $STATE/.gitignore ]] || echo '*' >"$STATE/.gitignore"
}

pid_file() { echo "$STATE/run/$1.pid"; }
ports_file() { echo "$STATE/run/$1.ports"; }
log_file() { echo "$STATE/logs/$1.log"; }
data_dir() { echo "$STATE/data/$1"; }

# One connection attempt; on loopback a closed port answers at once.
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# wait_port HOST PORT TIMEOUT_SECONDS
wait_port() {
	local deadline=$(($(now_us) + $3 * 1000000))
	until port_open "$1" "$2"; do
		(($(now_us) < deadline)) || return 1
		sleep 0.1
	done
}

pid_alive() { # alive and not a zombie left for an init that does not reap
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [[ $st != Z ]]
}

# Prints the pid of BROKER if the pid file names a live process that is ours: same program
# name and (except redis, which rewrites its argv) the state dir on its command line. A pid that
# was reused by someone else's process is never reported, so never signalled.
broker_pid() {
	local b=$1 pid
	pid=$(cat "$(pid_file "$b")" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]] || return 1
	pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$("${b}_comm")" ]] || return 1
	[[ $b == redis ]] || tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$STATE" || return 1
	echo "$pid"
}

ports_open() {
	local p
	for p in $("${1}_ports"); do port_open "$HOST" "$p" || return 1; done
}

# Wait until BROKER's ports are open and its probe passes. Fails early when the process dies,
# or when no pid file appeared within 20 s (RabbitMQ writes its own after detaching).
wait_ready() {
	local b=$1 timeout=$2 t0 pid
	t0=$(now_us)
	while :; do
		if pid=$(cat "$(pid_file "$b")" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]]; then
			pid_alive "$pid" || { log "$b: process $pid exited during start-up"; return 1; }
		elif (($(now_us) - t0 > 20000000)); then
			log "$b: no pid file after 20 s"
			return 1
		fi
		ports_open "$b" && "${b}_probe" && return 0
		(($(now_us) - t0 < timeout * 1000000)) || { log "$b: not ready after ${timeout}s"; return 1; }
		sleep 0.1
	done
}

# Start a process detached from this shell (own session, no tty, output to the broker's log),
# and record its pid. setsid execs in place here (a background job is no group leader), so $!
# is the broker itself.
spawn() {
	local b=$1
	shift
	setsid "$@" </dev/null >>"$(log_file "$b")" 2>&1 &
	echo $! >"$(pid_file "$b")"
}

# A killed JVM's main thread turns zombie while its other threads still hold the sockets, so
# "pid gone" is not "ports free": wait for those too before the next start binds them.
wait_ports_closed() {
	local b=$1 deadline=$(($(now_us) + 15000000)) p
	for p in $("${b}_ports"); do
		while port_open "$HOST" "$p"; do
			(($(now_us) < deadline)) || { log "$b: $HOST:$p still open after stop"; return 1; }
			sleep 0.1
		done
	done
}

dump_log() {
	local f
	f=$(log_file "$1")
	log "last 30 lines of $f:"
	tail -n 30 "$f" >&2 2>/dev/null || true
}

# wait_gone PID TIMEOUT_SECONDS
wait_gone() {
	local deadline=$(($(now_us) + $2 * 1000000))
	while pid_alive "$1"; do
		(($(now_us) < deadline)) || return 1
		sleep 0.1
	done
}

# ---- start / stop (shared by start.sh, stop.sh, restart.sh, kill.sh) ----------------------------

start_one() {
	local b=$1 pid p k t0 limit
	limit=${START_TIMEOUT:-$(case $b in rabbitmq | kafka | artemis | activemq | rocketmq | pulsar) echo 120 ;; *) echo 30 ;; esac)}
	if pid=$(broker_pid "$b"); then
		# Ours and alive; if its ports are not open yet it may still be starting (another
		# start.sh), so wait for it to be ready too.
		ports_open "$b" || wait_ready "$b" "$limit" || { dump_log "$b"; exit 1; }
		echo "$b already running pid $pid at $("${b}_addr")"
		return
	fi
	rm -f "$(pid_file "$b")" # stale
	"${b}_installed" || "${b}_install"
	for p in $("${b}_ports"); do
		! port_open "$HOST" "$p" || die "$b: $HOST:$p is already taken by a process these scripts did not start"
	done
	state_dirs
	mkdir -p "$(data_dir "$b")"
	printf '=== %s: start %s\n' "$(date -u +%FT%TZ)" "$b" >>"$(log_file "$b")"
	for k in $(compgen -v | grep -E "^${b^^}_[A-Z_]*PORT$"); do echo "$k=${!k}"; done >"$(ports_file "$b")"
	t0=$(now_us)
	if ! { "${b}_launch" && wait_ready "$b" "$limit"; } ||
		{ declare -F "${b}_post_start" >/dev/null && ! "${b}_post_start"; }; then
		dump_log "$b"
		kill_one "$b" >/dev/null # a half-started broker would block the next attempt's ports
		exit 1
	fi
	echo "started $b pid $(broker_pid "$b") at $("${b}_addr") ($(since "$t0"))"
}

stop_one() { # graceful stop of our process; keeps the data dir
	local b=$1 pid t0
	if ! pid=$(broker_pid "$b"); then
		rm -f "$(pid_file "$b")" "$(ports_file "$b")"
		echo "$b not running"
		return 0
	fi
	t0=$(now_us)
	if declare -F "${b}_shutdown" >/dev/null; then "${b}_shutdown" "$pid" || true; fi
	! pid_alive "$pid" || kill -TERM "$pid" 2>/dev/null || true
	if ! wait_gone "$pid" "${STOP_TIMEOUT:-30}"; then
		log "$b: pid $pid still alive after ${STOP_TIMEOUT:-30}s, sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		wait_gone "$pid" 10 || die "$b: pid $pid survived SIGKILL"
	fi
	wait_ports_closed "$b" || true
	rm -f "$(pid_file "$b")" "$(ports_file "$b")"
	echo "stopped $b pid $pid ($(since "$t0"))"
}

kill_one() { # crash it: SIGKILL, no shutdown hooks, data kept
	local b=$1 pid
	if ! pid=$(broker_pid "$b"); then
		echo "$b not running"
		return 0
	fi
	kill -KILL "$pid"
	wait_gone "$pid" 10 || die "$b: pid $pid survived SIGKILL"
	wait_ports_closed "$b" || true
	rm -f "$(pid_file "$b")"
	echo "killed $b pid $pid (data kept)"
}

signal_one() { # SIGSTOP / SIGCONT: stall a broker and let it go on (pause.sh, resume.sh)
	local b=$1 sig=$2 pid
	pid=$(broker_pid "$b") || die "$b not running"
	kill -"$sig" "$pid"
	echo "sent SIG$sig to $b pid $pid"
}

# ---- apt -------------------------------------------------------------------------------------

# apt-get update at most once per machine (stamp outside the repo: fresh clones share it).
APT_STAMP=${MQBENCH_APT_STAMP:-/var/tmp/mqbench-apt-updated}
SUDO=
[[ $(id -u) == 0 ]] || SUDO=sudo

apt_get() {
	# RUNLEVEL=1 keeps invoke-rc.d from starting a package's service on our ports; the lock
	# timeout waits for another apt run (a parallel install step) instead of failing.
	$SUDO env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 \
		apt-get -q -o DPkg::Lock::Timeout=600 "$@" >>"$STATE/logs/apt.log" 2>&1 ||
		{ tail -n 30 "$STATE/logs/apt.log" >&2; return 1; }
}

apt_update() {
	log "apt-get update"
	apt_get update && $SUDO touch "$APT_STAMP"
}

# Install the Debian packages that are not installed yet (no apt call at all when none).
apt_install() {
	local p missing=()
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	state_dirs
	[[ -e $APT_STAMP ]] || apt_update
	log "apt-get install ${missing[*]}"
	# Package lists from an old update can point at files the mirror no longer has: refresh
	# once and retry.
	apt_get install -y --no-install-recommends "${missing[@]}" ||
		{ apt_update && apt_get install -y --no-install-recommends "${missing[@]}"; }
}

need_cmd() { # need_cmd COMMAND DEBIAN_PACKAGE
	command -v "$1" >/dev/null || apt_install "$2"
}
