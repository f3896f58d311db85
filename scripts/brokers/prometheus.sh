# shellcheck shell=bash
# Prometheus recipe (sourced by lib.sh): Debian's prometheus 2.42, with its remote write
# receiver and native histograms (both behind flags in 2.42) for the mqbench-prometheus output.
# No scrape targets: everything arrives by remote write. The package's own service is not
# started (apt_get's RUNLEVEL=1); this one listens on 127.0.0.1 only.

prometheus_installed() { command -v prometheus >/dev/null; }
prometheus_install() { apt_install prometheus; }

prometheus_launch() {
	local conf=$STATE/conf/prometheus.yml dir
	dir=$(data_dir prometheus)
	cat >"$conf" <<-CONF
		global:
		  evaluation_interval: 1m
	CONF
	spawn prometheus prometheus --config.file="$conf" --storage.tsdb.path="$dir" \
		--web.listen-address="$HOST:$PROMETHEUS_PORT" --web.enable-remote-write-receiver \
		--enable-feature=native-histograms --storage.tsdb.retention.time=2d --log.level=warn
}

prometheus_probe() { curl -fsS -m 2 -o /dev/null "http://$HOST:$PROMETHEUS_PORT/-/ready"; }
prometheus_ports() { echo "$PROMETHEUS_PORT"; }
prometheus_addr() { echo "$HOST:$PROMETHEUS_PORT"; }
prometheus_comm() { echo prometheus; }
