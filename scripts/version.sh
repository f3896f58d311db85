#!/usr/bin/env bash
# Prints the mqbench version a build of this checkout stamps (-ldflags -X, see
# extensions/internal/version): `git describe --tags --always --dirty` in a clone, with an
# untagged commit written devel+<commit>[+dirty] as the binary's build info would say it.
# Prints nothing outside a clone (a source copy, a container build context): the build then
# falls back to its build info. Deterministic for a given tree: no time in it.
#   scripts/version.sh           -> v1.2.0, v1.2.0-3-g1a2b3c4d5e6f, devel+1a2b3c4d5e6f+dirty
#   scripts/version.sh --ldflags -> -X github.com/mqbench/xk6-mqbench/internal/version.stamp=<that> (or nothing)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
v=""
if command -v git >/dev/null && git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  v=$(git -C "$repo" describe --tags --always --dirty --abbrev=12 2>/dev/null || true)
  if [[ $v =~ ^([0-9a-f]+)(-dirty)?$ ]]; then # no tag: the commit alone
    v="devel+${BASH_REMATCH[1]}${BASH_REMATCH[2]:++dirty}"
  fi
fi
if [[ ${1:-} == --ldflags ]]; then
  [[ -z $v ]] || echo "-X github.com/mqbench/xk6-mqbench/internal/version.stamp=$v"
else
  echo "$v"
fi
