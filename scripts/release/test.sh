#!/usr/bin/env bash
# make test: a release is reproducible. The release is built twice, from two clones of the
# commit at different paths (the commit as committed, whatever the working tree holds), and
# the two SHA256SUMS must be identical; the linux binary must name the version. Only linux/amd64 (the
# build make test compiled already; RELEASE_TEST_PLATFORMS to add others: each is a full
# cross-compile of k6).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
platforms=${RELEASE_TEST_PLATFORMS:-linux/amd64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RELEASE_PLATFORMS=$platforms
# Clones, not worktrees: the SBOM tool reads the main module's version from .git itself.
for c in one two; do git clone -q "$repo" "$work/$c" && git -C "$work/$c" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)"; done
other="$work/two"
"$work/one/scripts/release/build.sh" "$work/a"
"$other/scripts/release/build.sh" "$work/b"
if ! cmp -s "$work/a/SHA256SUMS" "$work/b/SHA256SUMS"; then
  echo "release test: two builds of one commit differ:" >&2
  diff "$work/a/SHA256SUMS" "$work/b/SHA256SUMS" >&2 || true
  exit 1
fi
(cd "$work/a" && sha256sum -c --quiet SHA256SUMS)
version=$("$other/scripts/version.sh")
got=$("$work/a/k6-mqbench-$version-linux-amd64" x mqbench --version)
[[ $got == "mqbench $version "* ]] || { echo "release test: the binary says '$got', want mqbench $version" >&2; exit 1; }
echo "release test: two builds of $version identical ($(wc -l <"$work/a/SHA256SUMS") files: $(cut -c67- "$work/a/SHA256SUMS" | tr '\n' ' '))"
