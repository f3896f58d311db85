#!/usr/bin/env bash
# Builds the runner image without a container daemon: an OCI image layout (umoci, from
# Debian's packages) holding the static bin/k6, CA certificates, a writable /tmp and a static
# busybox for /bin/sh and the few tools the k6-operator's initializer runs in it (`sh -c` around
# k6 archive and k6 inspect) and a CI job's shell; entrypoint `k6 x mqbench run`, working
# directory /work, so
#   <runtime> run --rm --network host -v "$PWD:/work" mqbench-k6 scenario.yaml
# runs a scenario mounted from outside and writes /work/results. One image for docker run, CI
# jobs and the k6-operator; docker/Dockerfile describes the same image for people with Docker.
#   scripts/image/build.sh [TAG]   -> .cache/image/layout (OCI layout, tag TAG, default local)
#                                     .cache/image/mqbench-k6.oci.tar (the layout as an oci-archive)
# MQBENCH_IMAGE_OUT=DIR writes there instead; MQBENCH_IMAGE_K6=FILE puts that static linux k6
# in instead of building one (a release's); SOURCE_DATE_EPOCH (seconds) gives every file, the
# config and the history that time, so two builds of one tree give the same image digest and
# tar (scripts/release/build.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tag="${1:-local}"
out="${MQBENCH_IMAGE_OUT:-$repo/.cache/image}" # a release builds its own elsewhere
command -v go >/dev/null || { echo "image: Go is required to build k6" >&2; exit 1; }
if ! command -v umoci >/dev/null || ! [[ -x /bin/busybox ]]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends umoci busybox-static >/dev/null
fi
start=$(date +%s)
rm -rf "$out/layout" "$out/bundle"
mkdir -p "$out"
# As docker/Dockerfile builds it: static (the image has no libc), symbols stripped, and
# stamped with this checkout's version (scripts/version.sh; docker/Dockerfile takes it as
# --build-arg MQBENCH_VERSION).
k6="$out/k6"
version=$("$repo/scripts/version.sh")
if [[ -n ${MQBENCH_IMAGE_K6:-} ]]; then
  cp "$MQBENCH_IMAGE_K6" "$k6"
  version=$("$k6" x mqbench --version | awk '{print $2}')
else
  (cd "$repo/extensions" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $("$repo/scripts/version.sh" --ldflags)" -o "$k6" ./cmd/k6)
fi
created=() tarflags=()
if [[ -n ${SOURCE_DATE_EPOCH:-} ]]; then
  when=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
  created=(--history.created "$when")
  tarflags=(--sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner)
fi
umoci init --layout "$out/layout"
umoci new --image "$out/layout:$tag"
umoci unpack --image "$out/layout:$tag" "$out/bundle" >/dev/null
root="$out/bundle/rootfs"
install -D -m 0755 "$k6" "$root/usr/local/bin/k6"
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
# The shell and what the operator's initializer calls (command -v, grep, mkdir, dirname), plus
# what a CI job's script commonly does; busybox-static has no library to bring along.
install -D -m 0755 /bin/busybox "$root/bin/busybox"
for a in sh basename cat cp cut date dirname env find grep head id ls mkdir mktemp mv nc rm sed sleep sort tail tee test tr true false wc xargs; do
  ln -s busybox "$root/bin/$a"
done
install -d -m 1777 "$root/tmp"
install -d -m 0755 "$root/work"
if [[ -n ${SOURCE_DATE_EPOCH:-} ]]; then
  find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
fi
umoci repack "${created[@]}" --image "$out/layout:$tag" "$out/bundle"
unpacked=$(du -sk "$root" | cut -f1)
rm -rf "$out/bundle"
# Root by default, so `-v "$PWD:/work"` can write results into a folder the host user owns;
# run with --user "$(id -u):$(id -g)" to write them as yourself.
umoci config "${created[@]}" ${SOURCE_DATE_EPOCH:+--created "$when"} --image "$out/layout:$tag" \
  --config.entrypoint /usr/local/bin/k6 --config.entrypoint x --config.entrypoint mqbench --config.entrypoint run \
  --config.workingdir /work \
  --config.env PATH=/usr/local/bin:/bin --config.env K6_NO_USAGE_REPORT=true --config.env K6_AUTO_EXTENSION_RESOLUTION=false --config.env TMPDIR=/tmp \
  --config.label org.opencontainers.image.title=mqbench-k6 \
  --config.label "org.opencontainers.image.description=mqbench: declarative load and latency tests for message brokers, on k6" \
  --config.label "org.opencontainers.image.version=${version:-devel}"
umoci gc --layout "$out/layout"
tar -C "$out/layout" "${tarflags[@]}" -cf "$out/mqbench-k6.oci.tar" .
layer=$(find "$out/layout/blobs/sha256" -type f -size +1M -printf '%s\n' | sort -n | tail -1)
echo "image: mqbench-k6:$tag in $out/layout: one layer of $(( layer / 1048576 )) MB compressed, $(( unpacked / 1024 )) MB unpacked; $out/mqbench-k6.oci.tar; $(( $(date +%s) - start ))s" >&2
