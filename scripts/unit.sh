#!/usr/bin/env bash
# `make unit` (and make test's and make check's unit step): every test that needs no broker
# and no bin/k6: the parser and its fixtures, thresholds against k6's own evaluation, the
# results writers, the runner on an in-process NATS server. The race detector on the
# concurrent packages (it needs cgo); every other package but the drivers and the itests is
# found by go list, so a new one is tested without being listed here.
set -euo pipefail
"$(dirname "$0")/test/schema-tool.sh" # check-jsonschema, for internal/schemagen's validator test
cd "$(dirname "$0")/../extensions"
CGO_ENABLED=1 go test -p 1 -count=1 -race ./internal/ledger/ ./internal/hist/ ./internal/runner/ ./internal/faultproxy/ ./internal/output/promrw/ ./internal/arrival/...
other_pkgs=$(go list ./... | grep -v -e /itest -e '/internal/driver\(/\|$\)' -e '/internal/\(ledger\|hist\|runner\|faultproxy\|output/promrw\|arrival\|arrival/executor\)$')
# shellcheck disable=SC2086 # one word per package
go test -count=1 $other_pkgs
