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
# The version it reports (k6 version, summary.json): git describe in a clone (version.sh);
# outside one, Go's build info.
ldflags=$(scripts/version.sh --ldflags)
# A first build (no bin/k6 yet) compiles k6 and every driver, about 1,100 packages, after
# fetching the modules it needs: minutes on 2 cores (docs/benchmarks.md, Cold start), with
# nothing printed while the compiler runs. Later builds reuse Go's build cache.
[[ -e bin/k6 ]] || echo "build: compiling bin/k6 (k6 and every driver): the first build takes a few minutes" >&2
(cd extensions && CGO_ENABLED=0 go build -trimpath -ldflags="$ldflags" -o ../bin/k6 ./cmd/k6)
echo "build: bin/k6 ready: $(bin/k6 x mqbench --version) ($(( $(date +%s) - start ))s)" >&2
