#!/usr/bin/env bash
# `make check`: the quick tier while iterating, with no broker to install: lint, bin/k6, every
# shipped scenario validated, the self-check, the tests that need no broker, and the
# integration tests that run on bin/k6's in-process NATS server. `make test` is the whole
# suite (every broker, the xk6 path, the image) and what CI runs.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
# The build mode make test uses (scripts/test.sh): one compile of the tree for every tool.
export CGO_ENABLED=0 GOFLAGS=-trimpath
# The itests that need no broker: their scenarios use `url: embedded`, or k6 refuses them
# before anything connects.
inprocess='^(TestSecurity.*|TestRunCommandBadInput|TestRunCommandResultsFolderAndRelativePayload|TestK8sRefusesExit111|TestK8sSingleRunnerJob|TestSamplesAreTagged)$'
scripts/lint.sh
scripts/build.sh
scripts/validate.sh
bin/k6 x mqbench selfcheck --results "$(mktemp -d)"
scripts/unit.sh
(cd extensions && MQBENCH_K6="$repo/bin/k6" go test -count=1 -run "$inprocess" ./itest/)
