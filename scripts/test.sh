#!/usr/bin/env bash
# `make test`: everything a fresh machine needs, then every test. Steps:
#   1. Go modules (pinned in extensions/go.mod); every broker's install starts in the background
#      (scripts/test/prefetch.sh: network and disk bound, it overlaps the compiles below)
#   2. make lint (vet, staticcheck, shellcheck, tidy); bin/k6 built; every shipped scenario
#      validated by it; `k6 x mqbench selfcheck`; the tests that need no broker (race detector
#      on the concurrent packages): all before any broker starts
#   3. real brokers started on 127.0.0.1 (scripts/brokers); listeners.sh fails if any of them
#      listens on anything but loopback; the driver tests (race detector) against them
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
read -r -a brokers <<<"${TEST_BROKERS:-nats redis influxdb rabbitmq kafka artemis activemq nsq}"
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

# Phased brokers: each is started alone after the main integration tests, for its own driver
# package and itests only, then stopped, so a fresh machine stays well inside CI's time and no
# idle JVM disturbs the other brokers' latency tests. One line each:
#   BROKERS (comma-separated, started in order)  DRIVER_PACKAGE  ITEST_REGEX (go test -run;
#   the main steps skip both)
phases=(
	"postgres ./internal/driver/pgdrv ^TestPostgres"
	"postgres,ferretdb ./internal/driver/mongodrv ^TestMongo"
	"elasticmq ./internal/driver/sqsdrv ^TestSQS"
	"rocketmq ./internal/driver/rocketmqdrv ^TestRocketMQ"
	"pulsar ./internal/driver/pulsardrv ^TestPulsar"
)
phase_brokers=() phase_pkgs=() phase_tests=()
for p in "${phases[@]}"; do
	read -r bs pkg re <<<"$p"
	IFS=, read -r -a bl <<<"$bs"
	phase_brokers+=("${bl[@]}") phase_pkgs+=("$pkg") phase_tests+=("$re")
done
# go test -skip with nothing to skip: a regex no test name matches.
skip=$(IFS='|'; echo "${phase_tests[*]:-^\$}")

trap steps_report EXIT
step modules "Go modules (extensions/go.mod); Debian tools; broker installs start in the background"
(cd extensions && go mod download)
scripts/test/prefetch.sh tools
mkdir -p .cache
prefetch_log=.cache/test-prefetch.log
scripts/test/prefetch.sh "${brokers[@]}" "${phase_brokers[@]}" >"$prefetch_log" 2>&1 &
prefetch_pid=$!

step lint "gofmt, go vet, staticcheck, shellcheck, go mod tidy (scripts/lint.sh)"
scripts/lint.sh

step build "bin/k6, and every shipped scenario validated by it"
scripts/build.sh
bin/k6 version
scripts/validate.sh

# Before any broker starts: the self-check needs none (its NATS server is in-process), and JVM
# brokers starting beside it are the noise it must not be judged on.
step selfcheck "a known delay and a stall injected in-process, reported as they must be (k6 x mqbench selfcheck)"
bin/k6 x mqbench selfcheck --results "$(mktemp -d)"

# The packages that need no broker, before any starts (the runner's in-process NATS tests are
# judged on a quiet machine).
step unit "tests that need no broker (scripts/unit.sh; race detector on ledger, hist, runner, faultproxy)"
scripts/unit.sh

step fuzz "every fuzz target briefly (scripts/fuzz.sh; make fuzz runs them longer)"
scripts/fuzz.sh 5s

step installs "wait for the background installs (log: $prefetch_log)"
wait "$prefetch_pid" || { tail -n 40 "$prefetch_log" >&2; echo "test: installing the brokers failed (log: $prefetch_log)" >&2; exit 1; }
cat "$prefetch_log"

step brokers "${brokers[*]}"
# The itests start and stop the three-node clusters (scripts/brokers/cluster.sh) themselves; a
# test killed by go test's timeout skips its cleanup, so stop them here too.
cleanup() {
	scripts/brokers/stop.sh "${brokers[@]}" "${phase_brokers[@]}" >/dev/null 2>&1 || true
	for c in nats rabbitmq kafka; do
		if [[ -e scripts/brokers/cluster/$c.sh ]]; then
			scripts/brokers/cluster.sh stop "$c" >/dev/null 2>&1 || true
		fi
	done
}
trap 'cleanup; steps_report' EXIT
scripts/brokers/start.sh "${brokers[@]}"
scripts/brokers/listeners.sh "${brokers[@]}"

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

export MQBENCH_SCREENSHOTS="$repo/.cache/screenshots"   # keep the report tests' screenshots for a look

step itests "real k6 runs against real brokers"
(cd extensions && MQBENCH_K6="$repo/bin/k6" go test -count=1 -v -timeout 45m -skip "$skip" ./itest/)

((${#phases[@]})) && scripts/brokers/stop.sh "${brokers[@]}" >/dev/null
for p in "${phases[@]}"; do
	read -r bs pkg re <<<"$p"
	IFS=, read -r -a bl <<<"$bs"
	step "phase-${bl[-1]}" "${bl[*]} started alone for $pkg and the itests $re, then stopped"
	scripts/brokers/start.sh "${bl[@]}"
	scripts/brokers/listeners.sh "${bl[@]}"
	(cd extensions && CGO_ENABLED=1 go test -count=1 -race "$pkg")
	(cd extensions && MQBENCH_K6="$repo/bin/k6" go test -count=1 -v -timeout 20m -run "$re" ./itest/)
	for ((i = ${#bl[@]} - 1; i >= 0; i--)); do scripts/brokers/stop.sh "${bl[i]}"; done # dependents first
done
