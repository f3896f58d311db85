#!/usr/bin/env bash
# Builds k6 with mqbench the way k6 users add an extension: xk6 (pinned in
# extensions/tools/xk6/go.mod) builds the k6 version extensions/go.mod pins, with this
# checkout's extension:
#   xk6 build v2.1.0 --with github.com/mqbench/xk6-mqbench=./extensions
# Users outside a clone write --with github.com/mqbench/xk6-mqbench@<version>.
#   scripts/xk6/build.sh [OUTPUT]   (default .cache/xk6/k6)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$repo/.cache/xk6/k6}"
mkdir -p "$(dirname "$out")" "$repo/bin"
(cd "$repo/extensions/tools/xk6" && go build -o "$repo/bin/xk6" go.k6.io/xk6)
k6v=$(awk '$1 == "go.k6.io/k6/v2" { print $2 } $2 == "go.k6.io/k6/v2" { print $3 }' "$repo/extensions/go.mod" | head -1)
[[ -n $k6v ]] || { echo "xk6: no go.k6.io/k6/v2 version in extensions/go.mod" >&2; exit 1; }
start=$(date +%s)
# The modules come from the local module cache, filled from extensions/go.sum by the build
# (go mod download first, for a fresh machine): nothing else is fetched, and xk6's check for a
# newer k6 (it asks for k6's latest version) stays off the network. CGO_ENABLED=0: a static
# binary, as scripts/build.sh and the image build it. GOSUMDB=off: xk6's fresh module has no
# go.sum and the file proxy serves no checksum database (the default one is not reachable
# everywhere); every module in the cache was checked against a go.sum or the checksum
# database by the downloads just before.
(cd "$repo/extensions" && go mod download)
# xk6 first resolves k6 alone (its own go.mod's versions, with their tests' dependencies) and
# only then adds the extension, so k6's build list must be in the cache too.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && go mod init xk6-k6 >/dev/null 2>&1 && go get "go.k6.io/k6/v2@$k6v" 2>/dev/null && go mod download all)
# xk6 also resolves the imports of its dependencies' tests, as a "latest" query; a module
# with no tagged version (gopkg.in/tomb.v1, under k6's test-only dependencies) has no answer
# to that in a file proxy, so it is named at the version extensions/go.sum pins.
tomb=$(awk '$1 == "gopkg.in/tomb.v1" && $2 !~ /go.mod$/ { print $2; exit }' "$repo/extensions/go.sum")
[[ -n $tomb ]] || { echo "xk6: no gopkg.in/tomb.v1 version in extensions/go.sum" >&2; exit 1; }
# xk6's own build flags (-trimpath, -s -w) plus the version stamp (scripts/version.sh): a
# folder replacement (=./extensions) has no module version in the build info, so without it
# the binary would say devel. A user's `--with github.com/mqbench/xk6-mqbench@v1.2.0` needs
# no stamp: that version is in the build info.
(cd "$repo" && GOPROXY="file://$(go env GOMODCACHE)/cache/download" GOFLAGS=-mod=mod GOSUMDB=off \
  K6_NO_USAGE_REPORT=true CGO_ENABLED=0 "$repo/bin/xk6" build "$k6v" \
  --build-flags=-trimpath --build-flags="-ldflags=-s -w $("$repo/scripts/version.sh" --ldflags)" \
  --with github.com/mqbench/xk6-mqbench=./extensions --replace "gopkg.in/tomb.v1=gopkg.in/tomb.v1@$tomb" --output "$out")
echo "xk6: $out ($("$out" x mqbench --version)) built with xk6 $(cd "$repo/extensions/tools/xk6" && go list -m -f '{{.Version}}' go.k6.io/xk6), k6 $k6v in $(( $(date +%s) - start ))s ($(du -m "$out" | cut -f1) MB)" >&2
