#!/usr/bin/env bash
# Usage: scripts/brokers/listeners.sh [BROKER...|all]   (no argument = all)
# Every broker these scripts started is meant to listen on loopback only. For each running one
# (our pid file, checked as in broker_pid) this lists the TCP and UDP sockets its process and
# its children listen on (`ss -ltnup`), and exits 1, naming broker, address and port, if any is
# bound to anything but 127.0.0.1 or ::1 (a wildcard 0.0.0.0, ::, * included). RabbitMQ's
# check includes epmd, which its start brings up outside its process tree (shared by every
# Erlang node on the machine). Brokers not running are skipped.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd ss iproute2

# PID and all its descendants, one per line (from /proc: no pgrep needed).
tree() {
	local p c
	echo "$1"
	for p in /proc/[0-9]*; do
		c=$(awk '{print $4}' "$p/stat" 2>/dev/null) || continue
		[[ $c == "$1" ]] && tree "${p#/proc/}"
	done
	return 0
}

# "PROTO LOCAL_ADDRESS:PORT PID" for every listening TCP socket and bound UDP socket owned by
# one of the pids given (a socket shared by several processes appears once per owner).
sockets() {
	ss -Hltnup | awk -v pids=" $* " '{
		rest = $0
		while (match(rest, /pid=[0-9]+,/)) {
			p = substr(rest, RSTART + 4, RLENGTH - 5)
			if (index(pids, " " p " ")) print $1, $5, p
			rest = substr(rest, RSTART + RLENGTH)
		}
	}'
}

# Loopback as ss prints it: 127.0.0.1, [::1], or a Java socket bound to 127.0.0.1 shown as the
# IPv4-mapped [::ffff:127.0.0.1]; an interface suffix (%lo) is ignored.
loopback() {
	local a=${1#[}
	a=${a%]}
	a=${a%%\%*}
	[[ $a == 127.0.0.1 || $a == ::1 || $a == ::ffff:127.0.0.1 ]]
}

expand_brokers "$@"
bad=0
for b in "${BROKERS[@]}"; do
	if ! pid=$(broker_pid "$b"); then
		echo "$b not running"
		continue
	fi
	mapfile -t pids < <(tree "$pid")
	[[ $b != rabbitmq ]] || mapfile -t -O "${#pids[@]}" pids < <(pgrep -x epmd || true)
	n=0
	while read -r proto local owner; do
		n=$((n + 1))
		if loopback "${local%:*}"; then
			echo "$b pid $owner $proto $local"
		else
			echo "$b pid $owner $proto $local NOT LOOPBACK" >&2
			log "$b listens on ${local%:*} port ${local##*:} ($proto), not on 127.0.0.1 or ::1"
			bad=1
		fi
	done < <(sockets "${pids[@]}")
	((n)) || { log "$b (pid $pid) has no listening socket"; bad=1; }
done
exit "$bad"
