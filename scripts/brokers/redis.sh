# shellcheck shell=bash
# Redis recipe (sourced by lib.sh): Debian redis-server 7.0, in memory only (no RDB, no AOF).
# For the TLS and ACL tests (extensions/itest/tls_redis_test.go): REDIS_TLS_CERT, REDIS_TLS_KEY
# and REDIS_TLS_CA serve TLS only on REDIS_PORT and require client certificates;
# REDIS_ACL_FILE loads users from an ACL file.

redis_installed() { command -v redis-server >/dev/null && command -v redis-cli >/dev/null; }
redis_install() { apt_install redis-server redis-tools; }

redis_tls_args() { # the server's TLS flags, or none
	[[ -n ${REDIS_TLS_CERT:-} ]] || return 0
	echo --port 0 --tls-port "$REDIS_PORT" --tls-cert-file "$REDIS_TLS_CERT" --tls-key-file "$REDIS_TLS_KEY" \
		--tls-ca-cert-file "${REDIS_TLS_CA:?}" --tls-auth-clients yes
}

redis_launch() {
	local port=(--port "$REDIS_PORT") tls acl=()
	read -r -a tls <<<"$(redis_tls_args)"
	((${#tls[@]} == 0)) || port=()
	[[ -z ${REDIS_ACL_FILE:-} ]] || acl=(--aclfile "$REDIS_ACL_FILE")
	spawn redis redis-server --bind "$HOST" "${port[@]}" "${tls[@]}" "${acl[@]}" --save '' --appendonly no \
		--dir "$(data_dir redis)" --daemonize no
}

redis_probe() {
	local tls=()
	# The server asks for a client certificate: the probe shows its own (the server's pair,
	# signed by the same CA).
	[[ -z ${REDIS_TLS_CERT:-} ]] || tls=(--tls --cacert "$REDIS_TLS_CA" --cert "$REDIS_TLS_CERT" --key "$REDIS_TLS_KEY")
	[[ $(redis-cli -h "$HOST" -p "$REDIS_PORT" "${tls[@]}" ping 2>/dev/null) == PONG ]]
}
redis_ports() { echo "$REDIS_PORT"; }
redis_addr() { echo "$HOST:$REDIS_PORT"; }
redis_comm() { echo redis-server; }
