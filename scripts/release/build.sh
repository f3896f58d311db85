#!/usr/bin/env bash
# `make release`: what a user pins, built reproducibly from this checkout into dist/<version>/:
#   k6-mqbench-<version>-<os>-<arch>[.exe]  k6 with mqbench, static (CGO off), -trimpath, no
#                                           build id, no VCS stamp, stripped, for each platform
#   mqbench-k6-<version>.oci.tar            the runner image (scripts/image/build.sh) around
#                                           the linux/amd64 binary, every time the commit's
#   sbom.cdx.json                           CycloneDX SBOM of the extension's modules
#                                           (cyclonedx-gomod, pinned in extensions/tools/sbom)
#   SHA256SUMS                              sha256sum -c checks every file above
# The version is the tag on HEAD (v1.2.0) or scripts/version.sh's devel+<commit>; every time
# written into an artifact is the commit's (SOURCE_DATE_EPOCH), so two runs on one commit give
# the same checksums (scripts/release/test.sh checks it).
#   scripts/release/build.sh [OUT]   RELEASE_PLATFORMS="linux/amd64 …" to build fewer
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
version=$("$repo/scripts/version.sh")
[[ -n $version ]] || { echo "release: not a git clone: no version to name the release by" >&2; exit 2; }
if [[ $version == *dirty* ]]; then
  echo "release: the checkout has uncommitted changes ($version): commit them first" >&2
  [[ ${RELEASE_ALLOW_DIRTY:-} == 1 ]] || exit 2
fi
out="${1:-$repo/dist/$version}"
platforms=${RELEASE_PLATFORMS:-linux/amd64 linux/arm64 darwin/arm64 windows/amd64}
SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct)
export SOURCE_DATE_EPOCH
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
ldflags="-s -w -buildid= $("$repo/scripts/version.sh" --ldflags)" # the stamp build.sh and the image use
for p in $platforms; do
  os=${p%/*} arch=${p#*/} ext=""
  [[ $os == windows ]] && ext=.exe
  bin="$out/k6-mqbench-$version-$os-$arch$ext"
  (cd "$repo/extensions" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags="$ldflags" -o "$bin" ./cmd/k6)
  echo "release: $(basename "$bin")" >&2
done
linux="$out/k6-mqbench-$version-linux-amd64"
if [[ -f $linux ]]; then
  img=$(mktemp -d)
  # An image tag allows [A-Za-z0-9_.-]: devel+<commit> is tagged devel-<commit>.
  MQBENCH_IMAGE_OUT=$img MQBENCH_IMAGE_K6=$linux "$repo/scripts/image/build.sh" "${version//+/-}" 2>/dev/null
  mv "$img/mqbench-k6.oci.tar" "$out/mqbench-k6-$version.oci.tar"
  rm -rf "$img"
  echo "release: mqbench-k6-$version.oci.tar" >&2
fi
(cd "$repo/extensions/tools/sbom" && go build -o "$repo/bin/cyclonedx-gomod" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod)
(cd "$repo/extensions" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 "$repo/bin/cyclonedx-gomod" app -json -noserial -notimestamp \
  -main cmd/k6 -output "$out/sbom.cdx.json" .)
echo "release: sbom.cdx.json" >&2
sums=$(cd "$out" && find . -maxdepth 1 -type f -printf '%f\n' | LC_ALL=C sort | xargs sha256sum)
printf '%s\n' "$sums" >"$out/SHA256SUMS"
echo "release: $version in $out ($(( $(date +%s) - start ))s)" >&2
