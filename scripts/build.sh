#!/usr/bin/env bash
# Builds bin/k6: an ordinary Go build of extensions/cmd/k6 (what xk6 would generate), with
# every dependency version locked in extensions/go.mod and go.sum.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "build: Go is required (https://go.dev/doc/install)" >&2; exit 1; }
mkdir -p bin
start=$(date +%s)
# CGO_ENABLED=0: a static binary, as the container image builds it. With cgo on, the Pulsar
# client (pulsar-client-go) links C zstd (github.com/DataDog/zstd) instead of its pure-Go one.
(cd extensions && CGO_ENABLED=0 go build -trimpath -o ../bin/k6 ./cmd/k6)
echo "build: bin/k6 ready ($(( $(date +%s) - start ))s)" >&2
