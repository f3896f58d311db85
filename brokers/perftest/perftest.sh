#!/usr/bin/env bash
# Usage: brokers/perftest/perftest.sh [PerfTest ARGS...]     e.g. perftest.sh --help
# RabbitMQ PerfTest (com.rabbitmq.perf.PerfTest), RabbitMQ's own load tool, from the jars pinned
# in brokers/perftest/pom.xml. The Maven Central artifact is a thin jar: its runtime
# dependencies are copied once beside it into $MQBENCH_STATE/perftest/lib (again only when the
# pom changes); java and mvn are installed first when missing. PERFTEST_JAVA_OPTS adds JVM flags.
set -euo pipefail
# shellcheck source=scripts/brokers/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/brokers/lib.sh"

PERFTEST_POM=$REPO/brokers/perftest/pom.xml
PERFTEST_LIB=$STATE/perftest/lib
stamp=$(sha256sum <"$PERFTEST_POM" | cut -c1-16)
if ! command -v java >/dev/null || [[ $(cat "$PERFTEST_LIB/.pom.stamp" 2>/dev/null) != "$stamp" ]]; then
	need_cmd java openjdk-17-jre-headless
	need_cmd mvn maven
	state_dirs
	log "perftest: copying jars pinned in $PERFTEST_POM"
	rm -rf "$PERFTEST_LIB"
	mvn -B -q -f "$PERFTEST_POM" dependency:copy-dependencies \
		-DoutputDirectory="$PERFTEST_LIB" -DincludeScope=runtime >"$STATE/logs/perftest-install.log" 2>&1 ||
		{ tail -n 30 "$STATE/logs/perftest-install.log" >&2; die "perftest: mvn could not copy the pinned jars"; }
	echo "$stamp" >"$PERFTEST_LIB/.pom.stamp"
fi
# shellcheck disable=SC2086 # PERFTEST_JAVA_OPTS is a list of flags
exec java ${PERFTEST_JAVA_OPTS:-} -cp "$PERFTEST_LIB/*" com.rabbitmq.perf.PerfTest "$@"
