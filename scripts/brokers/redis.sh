# shellcheck shell=bash
# Redis recipe (sourced by lib.sh): Debian redis-server 7.0, in memory only (no RDB, no AOF).

redis_installed() { command -v redis-server >/dev/null && command -v redis-cli >/dev/null; }
redis_install() { apt_install redis-server redis-tools; }

redis_launch() {
	spawn redis redis-server --bind "$HOST" --port "$REDIS_PORT" --save '' --appendonly no \
		--dir "$(data_dir redis)" --daemonize no
}

redis_probe() { [[ $(redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; }
redis_ports() { echo "$REDIS_PORT"; }
redis_addr() { echo "$HOST:$REDIS_PORT"; }
redis_comm() { echo redis-server; }
