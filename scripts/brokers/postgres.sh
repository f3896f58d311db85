# shellcheck shell=bash
# PostgreSQL recipe (sourced by lib.sh): Debian postgresql-15 (the package name pins the
# major), used as a queue store (SELECT … FOR UPDATE SKIP LOCKED) and as FerretDB's backend.
# The binaries live in PostgreSQL 15's lib bin dir (not on PATH); the server refuses to run as
# root, so as root initdb and postgres run as the postgres user (setpriv execs in place, so
# spawn's $! is the postmaster itself). Its own cluster: data in data/postgres/pgdata (initdb
# at first start, trust auth, so a client names only the user postgres), unix socket in
# data/postgres/sock, TCP on 127.0.0.1:POSTGRES_PORT only; database POSTGRES_DATABASE is
# created after start. Clients: postgres://postgres@127.0.0.1:5532/mqbench
# For the TLS test (extensions/itest/tls_postgres_test.go): POSTGRES_TLS_CERT, POSTGRES_TLS_KEY
# and POSTGRES_TLS_CA turn ssl on and replace pg_hba.conf: TCP clients must use TLS and log in
# with a client certificate whose common name is their user (`cert`), except the users in
# POSTGRES_PASSWORD_USERS (comma-separated), who give a SCRAM password over TLS; the unix
# socket stays trust, for this script's own psql.

POSTGRES_BIN=/usr/lib/postgresql/15/bin
: "${POSTGRES_DATABASE:=mqbench}"
# Enough for several pools (each driver instance, FerretDB, pgbench -c N) at once.
: "${POSTGRES_MAX_CONNECTIONS:=200}"

postgres_installed() { [[ -x $POSTGRES_BIN/postgres && -x $POSTGRES_BIN/pg_isready ]] && id postgres >/dev/null 2>&1; }
# postgresql-15 pulls postgresql-client-15 (psql, pg_isready) and creates the postgres user;
# pgbench comes with the server package. RUNLEVEL=1 (apt_get) keeps the package's own
# cluster from starting.
postgres_install() { apt_install postgresql-15; }

# The prefix that runs a server-side program as the postgres user when we are root (as anyone
# else: nothing). An array, not a function, because spawn runs it through setsid.
POSTGRES_AS_OWNER=()
[[ $(id -u) != 0 ]] || POSTGRES_AS_OWNER=(setpriv --reuid=postgres --regid=postgres --init-groups --)

# Processes (any, the dead postmaster's orphans included) whose working dir is the data dir.
postgres_leftovers() {
	local d pgdata
	pgdata=$(postgres_pgdata)
	for d in /proc/[0-9]*; do
		[[ $(readlink "$d/cwd" 2>/dev/null) == "$pgdata" ]] && echo "${d#/proc/}"
	done
	return 0
}

postgres_pgdata() { echo "$(data_dir postgres)/pgdata"; }
postgres_sock() { echo "$(data_dir postgres)/sock"; }

postgres_launch() {
	local dir pgdata
	dir=$(data_dir postgres)
	pgdata=$(postgres_pgdata)
	mkdir -p "$(postgres_sock)"
	if [[ $(id -u) == 0 ]]; then
		chown -R postgres:postgres "$dir"
		# A state dir under a private parent (mktemp -d, go test's TempDir: mode 0700) is out
		# of the postgres user's reach; say so instead of initdb's "permission denied".
		"${POSTGRES_AS_OWNER[@]}" test -x "$dir" ||
			{ log "postgres: the postgres user cannot reach $dir: make its parent directories traversable (chmod o+x) or set MQBENCH_STATE elsewhere"; return 1; }
	fi
	if [[ ! -s $pgdata/PG_VERSION ]]; then
		rm -rf "$pgdata"
		"${POSTGRES_AS_OWNER[@]}" "$POSTGRES_BIN/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 \
			--locale=C.UTF-8 >>"$(log_file postgres)" 2>&1 || { log "postgres: initdb failed"; return 1; }
	fi
	# After kill.sh the dead postmaster's children exit on their own within a moment; a new
	# postmaster refuses to start while they still hold its shared memory.
	local n=0
	while [[ -n $(postgres_leftovers) ]] && ((n++ < 100)); do sleep 0.1; done
	# A killed postmaster can stay a zombie here (PID 1 may not reap), and postgres takes a lock
	# file (data dir, socket dir) naming a pid that still exists, zombie or not, for a live
	# server: drop the ones whose pid is dead.
	local f old
	for f in "$pgdata/postmaster.pid" "$(postgres_sock)"/.s.PGSQL.*.lock; do
		old=$(head -n 1 "$f" 2>/dev/null) || continue
		[[ ! $old =~ ^[0-9]+$ ]] || pid_alive "$old" || rm -f "$f"
	done
	local tls=()
	if [[ -n ${POSTGRES_TLS_CERT:-} ]]; then
		postgres_tls_files "$dir/tls" || return 1
		tls=(-c ssl=on -c ssl_cert_file="$dir/tls/server.pem" -c ssl_key_file="$dir/tls/server-key.pem"
			-c ssl_ca_file="$dir/tls/ca.pem" -c hba_file="$dir/tls/pg_hba.conf" -c password_encryption=scram-sha-256)
	fi
	# Everything on the command line (not postgresql.conf) so the port can change per start.
	spawn postgres "${POSTGRES_AS_OWNER[@]}" "$POSTGRES_BIN/postgres" -D "$pgdata" \
		-c listen_addresses="$HOST" -p "$POSTGRES_PORT" -c unix_socket_directories="$(postgres_sock)" \
		-c max_connections="$POSTGRES_MAX_CONNECTIONS" -c logging_collector=off "${tls[@]}"
}

# Copies of the server's certificate, key and CA where the server reads them, and the TLS-only
# pg_hba.conf. PostgreSQL refuses a key that others may read: the copy is the postgres user's,
# mode 0600 (the test's own file may be root's).
postgres_tls_files() {
	local d=$1 u line=""
	mkdir -p "$d"
	cp "$POSTGRES_TLS_CERT" "$d/server.pem"
	cp "$POSTGRES_TLS_KEY" "$d/server-key.pem"
	cp "${POSTGRES_TLS_CA:?POSTGRES_TLS_CA must be set with POSTGRES_TLS_CERT}" "$d/ca.pem"
	IFS=, read -r -a u <<<"${POSTGRES_PASSWORD_USERS:-}"
	((${#u[@]} == 0)) || line="hostssl all $(IFS=,; echo "${u[*]}") $HOST/32 scram-sha-256"
	printf '%s\n' "local all all trust" "$line" "hostssl all all $HOST/32 cert" >"$d/pg_hba.conf"
	chmod 0600 "$d/server-key.pem"
	[[ $(id -u) != 0 ]] || chown -R postgres:postgres "$d"
}

postgres_probe() {
	"$POSTGRES_BIN/pg_isready" -q -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres -t 2
}

# psql as a client over TCP (root may be a client; only the server refuses root); over the
# unix socket when TCP needs TLS and a client certificate.
postgres_psql() {
	local h=$HOST
	[[ -z ${POSTGRES_TLS_CERT:-} ]] || h=$(postgres_sock)
	"$POSTGRES_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$h" -p "$POSTGRES_PORT" -U postgres "$@"
}

postgres_post_start() {
	[[ $(postgres_psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$POSTGRES_DATABASE'") == 1 ]] ||
		postgres_psql -d postgres -c "CREATE DATABASE \"$POSTGRES_DATABASE\""
}

# Fast shutdown (SIGINT: active sessions are cut, then a checkpoint). SIGTERM would be "smart"
# and wait for every client, pools included, to disconnect.
postgres_shutdown() {
	kill -INT "$1" 2>/dev/null || return 0
	wait_gone "$1" "${STOP_TIMEOUT:-30}"
}

postgres_ports() { echo "$POSTGRES_PORT"; }
postgres_addr() { echo "$HOST:$POSTGRES_PORT"; }
postgres_comm() { echo postgres; }
