# shellcheck shell=bash
# NSQ recipe (sourced by lib.sh): nsqd v1.3.0 built from the pinned tools module in brokers/nsq
# (go.mod + go.sum, with nsq's own go-svc replace line) into bin/; no nsqlookupd (clients
# connect to nsqd directly). Messages live in memory up to --mem-queue-size per topic/channel,
# beyond that in the data dir.
# For the TLS test (extensions/itest/tls_nsq_test.go): NSQ_TLS_CERT, NSQ_TLS_KEY and NSQ_TLS_CA
# require TLS of every client (--tls-required: TCP upgrades after IDENTIFY; the HTTP API is
# HTTPS only, on NSQ_HTTPS_PORT) and a client certificate signed by that CA
# (--tls-client-auth-policy require-verify). NSQ_AUTH_HTTP_ADDRESS (host:port) makes nsqd require
# AUTH and ask that auth server about each secret.

NSQ_MODULE=$REPO/brokers/nsq
# 1MB cells (1,048,576 bytes + mqbench's header) must fit: nsqd's default cap is 1 MiB.
: "${NSQ_MAX_MSG_SIZE:=4194304}"

nsq_go() { command -v go || { [[ -x /usr/local/go/bin/go ]] && echo /usr/local/go/bin/go; }; }

# Rebuild only when the pinned module changes: the stamp holds the hash of go.mod + go.sum.
nsq_stamp() { cat "$NSQ_MODULE/go.mod" "$NSQ_MODULE/go.sum" | sha256sum | cut -c1-16; }

nsq_installed() { [[ -x $STATE/bin/nsqd && $(cat "$STATE/bin/nsqd.stamp" 2>/dev/null) == "$(nsq_stamp)" ]]; }

# nsqd, and the peer tools bench_writer/bench_reader from the same module.
nsq_install() {
	local go t
	go=$(nsq_go) || die "nsq: needs a Go toolchain to build nsqd (no Debian package)"
	state_dirs
	log "nsq: building nsqd, bench_writer, bench_reader from $NSQ_MODULE (pinned in go.mod)"
	for t in apps/nsqd bench/bench_writer bench/bench_reader; do
		# GOTOOLCHAIN=local: never try to download another toolchain (no such network here).
		(cd "$NSQ_MODULE" && GOTOOLCHAIN=local "$go" build -trimpath \
			-o "$STATE/bin/${t##*/}.tmp" "github.com/nsqio/nsq/$t")
		mv "$STATE/bin/${t##*/}.tmp" "$STATE/bin/${t##*/}"
	done
	nsq_stamp >"$STATE/bin/nsqd.stamp"
}

nsq_launch() {
	local tls=()
	if [[ -n ${NSQ_TLS_CERT:-} ]]; then
		tls=(--tls-cert="$NSQ_TLS_CERT" --tls-key="$NSQ_TLS_KEY" --tls-root-ca-file="${NSQ_TLS_CA:?NSQ_TLS_CA must be set with NSQ_TLS_CERT}"
			--tls-client-auth-policy=require-verify --tls-required=true --https-address="$HOST:${NSQ_HTTPS_PORT:?NSQ_HTTPS_PORT must be set with NSQ_TLS_CERT}")
	fi
	[[ -z ${NSQ_AUTH_HTTP_ADDRESS:-} ]] || tls+=(--auth-http-address="$NSQ_AUTH_HTTP_ADDRESS")
	spawn nsq "$STATE/bin/nsqd" --tcp-address="$HOST:$NSQ_PORT" --http-address="$HOST:$NSQ_HTTP_PORT" \
		--data-path="$(data_dir nsq)" --broadcast-address="$HOST" --max-msg-size="$NSQ_MAX_MSG_SIZE" "${tls[@]}"
}

# With TLS the plain HTTP API answers 403 TLS_REQUIRED: the probe asks the HTTPS one, showing
# the server's own certificate (signed by the same CA) as its client certificate.
nsq_probe() {
	if [[ -n ${NSQ_TLS_CERT:-} ]]; then
		[[ $(curl -fsS -m 2 --cacert "$NSQ_TLS_CA" --cert "$NSQ_TLS_CERT" --key "$NSQ_TLS_KEY" \
			"https://$HOST:$NSQ_HTTPS_PORT/ping" 2>/dev/null) == OK ]]
		return
	fi
	[[ $(curl -fsS -m 2 "http://$HOST:$NSQ_HTTP_PORT/ping" 2>/dev/null) == OK ]]
}
nsq_ports() { echo "$NSQ_PORT $NSQ_HTTP_PORT${NSQ_TLS_CERT:+ $NSQ_HTTPS_PORT}"; }
nsq_addr() { echo "$HOST:$NSQ_PORT"; }
nsq_comm() { echo nsqd; }
