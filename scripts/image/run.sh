#!/usr/bin/env bash
# Runs the runner image (scripts/image/build.sh) with an OCI runtime from Debian's packages,
# as `docker run --rm --network host -v DIR:/work mqbench-k6 ARGS…` would, on a machine
# without a container daemon: the layout is unpacked into a runtime bundle, the host network
# kept (no network namespace), DIR bind-mounted at /work, and ARGS appended to the image's
# entrypoint (`k6 x mqbench run`). The exit code is the container's, i.e. the run's.
#   scripts/image/run.sh DIR [TAG] -- ARGS…
# MQBENCH_IMAGE_ENV (NAME=VALUE lines) is added to the container's environment, as docker's
# -e; MQBENCH_IMAGE_ENTRYPOINT replaces the entrypoint, as docker's --entrypoint.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:?usage: scripts/image/run.sh DIR [TAG] -- ARGS…}"
shift
tag=local
if [[ ${1:-} != -- ]]; then tag="${1:-local}"; shift; fi
[[ ${1:-} == -- ]] && shift
layout="$repo/.cache/image/layout"
# 125 when the image cannot be had, as docker says it (the CI script names that case).
[[ -d $layout ]] || { echo "image: no image at $layout: run scripts/image/build.sh" >&2; exit 125; }
dir="$(cd "$dir" && pwd)"
# runc, not crun: crun refuses a machine whose cgroups are in hybrid (v1 + v2) mode; jq
# writes the runtime's config.
if ! command -v runc >/dev/null || ! command -v jq >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends runc jq >/dev/null
fi
bundle=$(mktemp -d "$repo/.cache/image/run.XXXXXX")
id="mqbench-$(basename "$bundle")"
cleanup() { runc delete -f "$id" >/dev/null 2>&1 || true; rm -rf "$bundle"; }
trap cleanup EXIT
umoci unpack --image "$layout:$tag" "$bundle/b" >/dev/null || { echo "image: no mqbench-k6:$tag in $layout" >&2; exit 125; }
# The image's config as docker run would make it: ARGS after the entrypoint (or
# MQBENCH_IMAGE_ENTRYPOINT instead of it), MQBENCH_IMAGE_ENV's NAME=VALUE lines added, no
# terminal, no network namespace (--network host: the broker on the host's 127.0.0.1 is the
# container's), DIR bind-mounted at /work.
config=$bundle/b/config.json
jq --indent 1 --arg work "$dir" --arg entrypoint "${MQBENCH_IMAGE_ENTRYPOINT:-}" --arg env "${MQBENCH_IMAGE_ENV:-}" '
  .process.args = (if $entrypoint != "" then [$entrypoint] else .process.args end) + $ARGS.positional
  | .process.env += [$env | split("\n")[] | select(contains("="))]
  | .process.terminal = false
  | .linux.namespaces |= map(select(.type != "network"))
  | .mounts += [{destination: "/work", type: "bind", source: $work, options: ["rbind", "rw"]}]
' --args -- "$@" <"$config" >"$config.new"
mv "$config.new" "$config"
cd "$bundle/b"
set +e
runc run "$id" </dev/null
code=$?
set -e
exit "$code"
