#!/bin/sh
# Runs one mqbench scenario in a service's pipeline and fails the job the way a pipeline can
# tell apart: exit 99 an SLA (threshold) breached, 112/113 the broker unreachable or refusing,
# 111 the scenario invalid. Copy it beside your scenarios; the CI templates call only this.
# POSIX sh: it runs in the runner image (Alpine) as well as on a CI host.
#
# Environment:
#   MQBENCH_SCENARIO  the scenario file (required), e.g. perf/orders-kafka.yaml
#   MQBENCH_K6        a k6 binary with mqbench (xk6 build, or the image's /usr/bin/k6), or
#   MQBENCH_IMAGE     the runner image, run with MQBENCH_RUNTIME (docker) on the host network
#   MQBENCH_BROKER    host:port to wait for before the run (optional; a service container
#                     may still be starting)
#   MQBENCH_RESULTS   results folder (default results)
#   MQBENCH_JUNIT     where junit.xml is copied for the CI's test report (default mqbench-junit.xml)
set -eu
scenario=${MQBENCH_SCENARIO:?set MQBENCH_SCENARIO to the scenario file}
results=${MQBENCH_RESULTS:-results}
junit=${MQBENCH_JUNIT:-mqbench-junit.xml}

# Wait up to 120 s for the broker's port (nc where it exists; bash's /dev/tcp otherwise).
if [ -n "${MQBENCH_BROKER:-}" ]; then
  host=${MQBENCH_BROKER%:*} port=${MQBENCH_BROKER##*:} i=0
  until if command -v nc >/dev/null 2>&1; then nc -z "$host" "$port" 2>/dev/null
        else bash -c ": >/dev/tcp/$host/$port" 2>/dev/null; fi; do
    i=$((i + 1))
    if [ "$i" -ge 120 ]; then echo "mqbench-ci: $MQBENCH_BROKER did not accept connections within 120 s" >&2; break; fi
    sleep 1
  done
fi

set +e
if [ -n "${MQBENCH_K6:-}" ]; then
  "$MQBENCH_K6" x mqbench run "$scenario" --results "$results"
  code=$?
elif [ -n "${MQBENCH_IMAGE:-}" ]; then
  mkdir -p "$results"
  ${MQBENCH_RUNTIME:-docker} run --rm --network host -v "$PWD:/work" "$MQBENCH_IMAGE" "$scenario" --results "$results"
  code=$?
else
  echo "mqbench-ci: set MQBENCH_K6 (a k6 binary with mqbench) or MQBENCH_IMAGE (the runner image)" >&2
  exit 2
fi
set -e

# The newest run's junit.xml, where the CI's test report reads it.
name=$(basename "$scenario" .yaml)
latest=$(ls -d "$results/$name"/*/ 2>/dev/null | sort | tail -n 1)
if [ -n "$latest" ] && [ -f "${latest}junit.xml" ]; then
  cp "${latest}junit.xml" "$junit"
fi

case $code in
  0) verdict="passed: every threshold held" ;;
  99) verdict="FAILED: an SLA threshold was breached" ;;
  105) verdict="stopped by a signal (what was measured is in $results)" ;;
  111) verdict="the scenario is invalid" ;;
  112) verdict="the broker was unreachable" ;;
  113) verdict="the broker refused the run (credentials, permissions, destination)" ;;
  *) verdict="failed" ;;
esac
echo "mqbench-ci: $scenario: exit $code, $verdict; results in ${latest:-$results}" >&2
exit "$code"
