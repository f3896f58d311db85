# shellcheck shell=bash
# NSQ recipe (sourced by lib.sh): nsqd v1.3.0 built from the pinned tools module in brokers/nsq
# (go.mod + go.sum, with nsq's own go-svc replace line) into bin/; no nsqlookupd (clients
# connect to nsqd directly). Messages live in memory up to --mem-queue-size per topic/channel,
# beyond that in the data dir.

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
	spawn nsq "$STATE/bin/nsqd" --tcp-address="$HOST:$NSQ_PORT" --http-address="$HOST:$NSQ_HTTP_PORT" \
		--data-path="$(data_dir nsq)" --broadcast-address="$HOST" --max-msg-size="$NSQ_MAX_MSG_SIZE"
}

nsq_probe() { [[ $(curl -fsS -m 2 "http://$HOST:$NSQ_HTTP_PORT/ping" 2>/dev/null) == OK ]]; }
nsq_ports() { echo "$NSQ_PORT $NSQ_HTTP_PORT"; }
nsq_addr() { echo "$HOST:$NSQ_PORT"; }
nsq_comm() { echo nsqd; }
