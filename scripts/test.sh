#!/usr/bin/env bash
# `make test`: everything a fresh machine needs, then every test. Steps:
#   1. Go modules (pinned in extensions/go.mod); in the background, every broker's install
#      (scripts/test/prefetch.sh) and the main brokers' start on 127.0.0.1: network, disk and
#      JVM start-up overlap the compiles of step 2
#   2. make lint (vet, staticcheck, shellcheck, tidy); bin/k6 built; every shipped scenario
#      validated by it
#   3. the brokers waited for; listeners.sh fails if any of them listens on anything but
#      loopback; `k6 x mqbench selfcheck`; the tests that need no broker (race detector on the
#      concurrent packages); the fuzz targets briefly; the driver tests (race detector)
#   4. the xk6 path, the image, the integration tests: bin/k6 runs short real scenarios
#      (extensions/itest); then the heavy brokers one phase each
# Brokers started here are stopped on exit; TEST_BROKERS overrides which ones. At the end a
# timing table (each step's seconds, packages compiled, MB downloaded, cold or warm) is printed
# and kept in .cache/test-times.tsv (scripts/test/steps.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
REPO=$repo
source scripts/test/steps.sh
# One build mode for everything that is not race-instrumented (go vet, staticcheck, bin/k6,
# the xk6 build, the image, the unit and integration tests): the tree is compiled once, not
# once per tool. bin/k6 is static and trimmed (scripts/build.sh), so that is the mode. The race
# suites need cgo and are their own compile anyway.
export CGO_ENABLED=0 GOFLAGS=-trimpath
read -r -a brokers <<<"${TEST_BROKERS:-nats redis influxdb prometheus rabbitmq kafka artemis activemq nsq mosquitto}"
export MQBENCH_REQUIRE_BROKERS=1   # a test that cannot reach its broker fails instead of skipping
# Kafka's SASL listener (scripts/brokers/kafka.sh; test credentials only): kafkadrv's
# TestSASLWrongPassword (and, with the right password, the conformance suite over SASL) and
# itest's TestWrongCredentialsExit113 use it. SCRAM-SHA-256 here: the itest covers PLAIN and
# SCRAM-SHA-512.
export MQBENCH_KAFKA_SASL_URL=kafka://127.0.0.1:9094 MQBENCH_KAFKA_SASL_MECHANISM=SCRAM-SHA-256 \
	MQBENCH_KAFKA_SASL_USER=mqbench MQBENCH_KAFKA_SASL_PASSWORD=mqbench-secret
# ActiveMQ Artemis (scripts/brokers/artemis.sh; test user, test credentials only): amqp10drv's
# TestArtemis* run the conformance suite with address plain against it.
export MQBENCH_ARTEMIS_URL=amqp://mqbench:mqbench-test@127.0.0.1:5673
# ActiveMQ Classic (scripts/brokers/activemq.sh; test user, test credentials only): amqp10drv's
# TestActiveMQ* run the conformance suite with address plain against it.
export MQBENCH_ACTIVEMQ_URL=amqp://mqbench:mqbench-test@127.0.0.1:5674

# Phased brokers: each phase's brokers are started after the main integration tests, for their
# own driver packages and itests only, then stopped, so no idle JVM of theirs disturbs the
# other brokers' latency tests. The light ones share a phase (no port or state in common);
# RocketMQ and Pulsar, two heavy JVMs, have one each. One line per phase:
#   BROKERS (comma-separated, started in order)  DRIVER_PACKAGES (comma-separated)
#   ITEST_REGEX (go test -run; the main steps skip the packages and the tests)
phases=(
	"postgres,ferretdb,elasticmq ./internal/driver/pgdrv,./internal/driver/mongodrv,./internal/driver/sqsdrv ^(TestPostgres|TestMongo|TestSQS)"
	"rocketmq ./internal/driver/rocketmqdrv ^TestRocketMQ"
	"pulsar ./internal/driver/pulsardrv ^TestPulsar"
)
phase_brokers=() phase_pkgs=() phase_tests=()
for p in "${phases[@]}"; do
	read -r bs pkgs re <<<"$p"
	IFS=, read -r -a bl <<<"$bs"
	IFS=, read -r -a pl <<<"$pkgs"
	phase_brokers+=("${bl[@]}") phase_pkgs+=("${pl[@]}") phase_tests+=("$re")
done
# go test -skip with nothing to skip: a regex no test name matches.
skip=$(IFS='|'; echo "${phase_tests[*]:-^\$}")

# The itests start and stop the three-node clusters (scripts/brokers/cluster.sh) themselves; a
# test killed by go test's timeout skips its cleanup, so stop them here too.
cleanup() {
	[[ -z ${setup_pid:-} ]] || { kill "$setup_pid" 2>/dev/null; wait "$setup_pid" 2>/dev/null; } || true
	scripts/brokers/stop.sh "${brokers[@]}" "${phase_brokers[@]}" >/dev/null 2>&1 || true
	for c in nats rabbitmq kafka; do
		if [[ -e scripts/brokers/cluster/$c.sh ]]; then
			scripts/brokers/cluster.sh stop "$c" >/dev/null 2>&1 || true
		fi
	done
}
trap 'cleanup; steps_report' EXIT

step modules "Go modules (extensions/go.mod); Debian tools; broker installs and starts go on in the background"
(cd extensions && go mod download)
scripts/test/prefetch.sh tools
mkdir -p .cache
# Network, disk and JVM start-up, beside the compiles of lint and build: every broker's
# install (the phases' too), then the main brokers started. Waited for before the self-check,
# so nothing is starting while a test is judged.
setup_log=.cache/test-setup.log
{ scripts/test/prefetch.sh "${brokers[@]}" "${phase_brokers[@]}" && scripts/brokers/start.sh "${brokers[@]}"; } >"$setup_log" 2>&1 &
setup_pid=$!

step lint "gofmt, go vet, staticcheck, shellcheck, go mod tidy (scripts/lint.sh)"
scripts/lint.sh

step build "bin/k6, and every shipped scenario validated by it"
scripts/build.sh
bin/k6 version
scripts/validate.sh

step brokers "wait for the background installs and starts: ${brokers[*]} (log: $setup_log)"
wait "$setup_pid" || { tail -n 40 "$setup_log" >&2; echo "test: installing or starting the brokers failed (log: $setup_log)" >&2; exit 1; }
setup_pid=
cat "$setup_log"
scripts/brokers/listeners.sh "${brokers[@]}"

# The self-check needs no broker (its NATS server is in-process); the brokers are up and idle,
# none is starting beside it.
step selfcheck "a known delay and a stall injected in-process, reported as they must be (k6 x mqbench selfcheck)"
bin/k6 x mqbench selfcheck --results "$(mktemp -d)"

step unit "tests that need no broker (scripts/unit.sh; race detector on ledger, hist, runner, faultproxy, the Prometheus output, the arrival-rate executor)"
scripts/unit.sh

step fuzz "every fuzz target briefly (scripts/fuzz.sh; make fuzz runs them longer)"
# A count, not a duration: at a duration's end Go's fuzzing coordinator can fail a target that
# found nothing ("context deadline exceeded", no input written) when a worker is mid-call, and
# FuzzLoadShard's workers spend seconds minimizing each new interesting input (CI failed so).
# 5,000 calls each (and 100 per minimization) take about what 5 s each did.
FUZZMINIMIZETIME=100x scripts/fuzz.sh 5000x

step drivers "driver tests against the real brokers (race detector)"
driver_pkgs=$(cd extensions && go list ./internal/driver/...)
for pkg in "${phase_pkgs[@]}"; do
	driver_pkgs=$(grep -v -x -F "github.com/mqbench/xk6-mqbench/${pkg#./}" <<<"$driver_pkgs")
done
# One package at a time (-p 1): each driver's conformance suite sends 2,000 messages unpaced
# and bounds the slowest one's send→receive time, which is then how long the broker takes to
# drain them; two race-instrumented suites beside two brokers on 2 cores took ActiveMQ from
# 1.2 s to 6.6 s (measured with two busy loops beside it: 4.9 s).
# shellcheck disable=SC2086 # one word per package
(cd extensions && CGO_ENABLED=1 go test -p 1 -count=1 -race $driver_pkgs)

step xk6 "k6 + mqbench built with xk6, run from an empty folder (scripts/xk6/test.sh)"
scripts/xk6/test.sh

step image "built without a daemon (umoci), run with runc against nats: exit 0, 99, 112 (scripts/image/test.sh)"
scripts/image/test.sh

step release "make release twice from two clones of the commit: identical checksums (scripts/release/test.sh, linux/amd64)"
scripts/release/test.sh

export MQBENCH_SCREENSHOTS="$repo/.cache/screenshots"   # keep the report tests' screenshots for a look

step itests "real k6 runs against real brokers"
# -parallel 16: the waiting tier (extensions/itest/waiting_test.go) admits its tests itself,
# four at a time, longest first; go test's own limit must not pick them first.
(cd extensions && MQBENCH_K6="$repo/bin/k6" go test -count=1 -v -timeout 45m -parallel 16 -skip "$skip" ./itest/)

# The brokers are done with: killed (their data is thrown away next), not stopped gracefully
# (RocketMQ's graceful stop took 19 s; killing the eight main brokers takes under 1 s); stop.sh
# then removes the data.
drop_brokers() { scripts/brokers/kill.sh "$@" >/dev/null && scripts/brokers/stop.sh "$@" >/dev/null; }
((${#phases[@]})) && drop_brokers "${brokers[@]}"
for p in "${phases[@]}"; do
	read -r bs pkgs re <<<"$p"
	IFS=, read -r -a bl <<<"$bs"
	IFS=, read -r -a pl <<<"$pkgs"
	step "phase-${bl[-1]}" "${bl[*]} started alone for ${pl[*]} and the itests $re, then stopped"
	scripts/brokers/start.sh "${bl[@]}"
	scripts/brokers/listeners.sh "${bl[@]}"
	(cd extensions && CGO_ENABLED=1 go test -p 1 -count=1 -race "${pl[@]}")
	# -parallel 4: a phase's overload tests run side by side once its other tests are done.
	(cd extensions && MQBENCH_K6="$repo/bin/k6" go test -count=1 -v -timeout 20m -parallel 4 -run "$re" ./itest/)
	for ((i = ${#bl[@]} - 1; i >= 0; i--)); do drop_brokers "${bl[i]}"; done # dependents first
done
