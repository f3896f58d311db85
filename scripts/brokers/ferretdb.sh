# shellcheck shell=bash
# FerretDB recipe (sourced by lib.sh): the MongoDB wire protocol on PostgreSQL, the stand-in for
# MongoDB (no MongoDB server can be installed here). FerretDB v1.24.0 (the last v1: v2 needs
# PostgreSQL's DocumentDB extension, which Debian does not package) built from the pinned tools
# module brokers/ferretdb into bin/. Its data lives in PostgreSQL (scripts/brokers/postgres.sh,
# started first when it is not running), database FERRETDB_DATABASE; its own state dir (a
# state.json) in data/ferretdb. Results against it are "FerretDB on PostgreSQL", not MongoDB.
# Clients: mongodb://127.0.0.1:27117
# For the TLS test (extensions/itest/tls_mongodb_test.go): FERRETDB_TLS_CERT, FERRETDB_TLS_KEY
# and FERRETDB_TLS_CA serve TLS only on FERRETDB_PORT and require client certificates signed by
# that CA; FERRETDB_AUTH_USER turns on FerretDB's own SCRAM authentication (its experimental
# --test-enable-new-auth: every command but the handshake needs a logged-in user) and creates
# that user in database FERRETDB_AUTH_DATABASE (default mqbench) with the password FerretDB
# reads from FERRETDB_SETUP_PASSWORD in its environment (never on its command line).

FERRETDB_MODULE=$REPO/brokers/ferretdb
: "${FERRETDB_DATABASE:=ferretdb}"

ferretdb_go() { command -v go || { [[ -x /usr/local/go/bin/go ]] && echo /usr/local/go/bin/go; }; }

# Rebuild only when the pinned module changes: the stamp holds the hash of go.mod + go.sum.
ferretdb_stamp() { cat "$FERRETDB_MODULE/go.mod" "$FERRETDB_MODULE/go.sum" | sha256sum | cut -c1-16; }

ferretdb_installed() {
	[[ -x $STATE/bin/ferretdb && $(cat "$STATE/bin/ferretdb.stamp" 2>/dev/null) == "$(ferretdb_stamp)" ]] &&
		postgres_installed
}

# FerretDB's module zip lacks build/version/version.txt (generated in its repo, embedded at
# build time; without it the binary panics "Invalid build/version/version.txt"), so the build
# runs on a vendored copy of the module (never in the repo) with that file written from the
# pinned version. The binary is kept per pin in the repo's build cache (.cache/build, or
# MQBENCH_BUILD_CACHE) and copied into bin/: a private state dir (the fault tests') reuses it
# instead of spending a minute on the same build.
ferretdb_install() {
	local go src version cached
	postgres_installed || postgres_install
	state_dirs
	cached=${MQBENCH_BUILD_CACHE:-$REPO/.cache/build}/ferretdb-$(ferretdb_stamp)
	if [[ ! -x $cached ]]; then
		go=$(ferretdb_go) || die "ferretdb: needs a Go toolchain to build FerretDB (no Debian package)"
		version=$(awk '$1 == "require" && $2 == "github.com/FerretDB/FerretDB" {print $3}' "$FERRETDB_MODULE/go.mod")
		[[ -n $version ]] || die "ferretdb: no 'require github.com/FerretDB/FerretDB vX' line in $FERRETDB_MODULE/go.mod"
		src=$(dirname "$cached")/ferretdb-src
		rm -rf "$src"
		mkdir -p "$src"
		cp "$FERRETDB_MODULE"/{go.mod,go.sum,tools.go} "$src/"
		log "ferretdb: building FerretDB $version from $FERRETDB_MODULE (pinned in go.mod; about a minute)"
		# GOTOOLCHAIN=local: never try to download another toolchain (no such network here).
		(cd "$src" && GOTOOLCHAIN=local "$go" mod vendor)
		echo "$version" >"$src/vendor/github.com/FerretDB/FerretDB/build/version/version.txt"
		(cd "$src" && GOTOOLCHAIN=local "$go" build -mod=vendor -trimpath \
			-o "$cached.tmp" github.com/FerretDB/FerretDB/cmd/ferretdb)
		mv "$cached.tmp" "$cached"
		rm -rf "$src"
	fi
	cp "$cached" "$STATE/bin/ferretdb.tmp"
	mv "$STATE/bin/ferretdb.tmp" "$STATE/bin/ferretdb"
	ferretdb_stamp >"$STATE/bin/ferretdb.stamp"
}

ferretdb_url() { echo "postgres://postgres@$HOST:$POSTGRES_PORT/$FERRETDB_DATABASE"; }

ferretdb_launch() {
	# FerretDB keeps every collection in PostgreSQL: start it (if not running) and create the
	# database. stop.sh ferretdb leaves PostgreSQL running; stop it by name.
	broker_pid postgres >/dev/null || start_one postgres >&2
	[[ $(postgres_psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$FERRETDB_DATABASE'") == 1 ]] ||
		postgres_psql -d postgres -c "CREATE DATABASE \"$FERRETDB_DATABASE\"" >/dev/null
	# --debug-addr: its default 127.0.0.1:8088 is InfluxDB's RPC port. --telemetry=disable: no
	# outbound reports (and no "undecided" banner).
	local listen=(--listen-addr="$HOST:$FERRETDB_PORT") auth=()
	if [[ -n ${FERRETDB_TLS_CERT:-} ]]; then
		listen=(--listen-addr= --listen-tls="$HOST:$FERRETDB_PORT" --listen-tls-cert-file="$FERRETDB_TLS_CERT"
			--listen-tls-key-file="$FERRETDB_TLS_KEY" --listen-tls-ca-file="${FERRETDB_TLS_CA:?FERRETDB_TLS_CA must be set with FERRETDB_TLS_CERT}")
	fi
	if [[ -n ${FERRETDB_AUTH_USER:-} ]]; then
		[[ -n ${FERRETDB_SETUP_PASSWORD:-} ]] || { log "ferretdb: FERRETDB_AUTH_USER needs FERRETDB_SETUP_PASSWORD"; return 1; }
		export FERRETDB_SETUP_PASSWORD
		auth=(--test-enable-new-auth --setup-database="${FERRETDB_AUTH_DATABASE:-mqbench}" --setup-username="$FERRETDB_AUTH_USER")
	fi
	spawn ferretdb "$STATE/bin/ferretdb" --handler=postgresql --postgresql-url="$(ferretdb_url)" \
		"${listen[@]}" --debug-addr="$HOST:$FERRETDB_DEBUG_PORT" "${auth[@]}" \
		--state-dir="$(data_dir ferretdb)" --telemetry=disable --log-level=warn
}

# The debug handler answers /debug/livez once the listener runs, /debug/readyz once the
# backend (PostgreSQL) answers too.
ferretdb_probe() { curl -fsS -m 2 -o /dev/null "http://$HOST:$FERRETDB_DEBUG_PORT/debug/readyz" 2>/dev/null; }
ferretdb_ports() { echo "$FERRETDB_PORT $FERRETDB_DEBUG_PORT"; }
ferretdb_addr() { echo "$HOST:$FERRETDB_PORT"; }
ferretdb_comm() { echo ferretdb; }
