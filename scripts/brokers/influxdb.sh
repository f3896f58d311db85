# shellcheck shell=bash
# InfluxDB 1.x recipe (sourced by lib.sh): Debian's influxdb 1.6.7, the version k6's built-in
# `--out influxdb` output was verified against. Database $INFLUXDB_DATABASE (k6) made on start.

: "${INFLUXDB_DATABASE:=k6}"

influxdb_installed() { command -v influxd >/dev/null; }
influxdb_install() { apt_install influxdb; }

influxdb_launch() {
	local conf=$STATE/conf/influxdb.conf dir
	dir=$(data_dir influxdb)
	# No usage reporting (no network here), nothing on 0.0.0.0, no _internal self-monitoring
	# writes and no per-request access log (k6 writes thousands of batches).
	cat >"$conf" <<-CONF
		reporting-disabled = true
		bind-address = "$HOST:$INFLUXDB_RPC_PORT"
		[meta]
		  dir = "$dir/meta"
		[data]
		  dir = "$dir/data"
		  wal-dir = "$dir/wal"
		[monitor]
		  store-enabled = false
		[http]
		  bind-address = "$HOST:$INFLUXDB_PORT"
		  log-enabled = false
	CONF
	spawn influxdb influxd run -config "$conf"
}

influxdb_probe() { curl -fsS -m 2 -o /dev/null "http://$HOST:$INFLUXDB_PORT/ping"; }

influxdb_post_start() {
	curl -fsS -m 10 -o /dev/null -XPOST "http://$HOST:$INFLUXDB_PORT/query" \
		--data-urlencode "q=CREATE DATABASE \"$INFLUXDB_DATABASE\""
}

influxdb_ports() { echo "$INFLUXDB_PORT"; }
influxdb_addr() { echo "$HOST:$INFLUXDB_PORT"; }
influxdb_comm() { echo influxd; }
