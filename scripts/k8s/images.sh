#!/usr/bin/env bash
# Builds the two images of the single-node cluster without a registry or a container daemon
# (umoci, OCI layouts under .cache/k8s-go/images) and imports them into its containerd:
# - registry.k8s.io/pause:3.10: Kubernetes' own pause.c (from the k8s.io/kubernetes module),
#   compiled static; every pod's sandbox.
# - mqbench-k6:e2e: bin/k6 (static), busybox-static for the shell the operator's initializer and
#   starter run in (`sh -c`), and curl with its shared libraries for the starter's resume calls.
#   The runners, the initializer, the starter and the merge Job all use it.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=$K8S_CACHE/images
mkdir -p "$out"
k6=$K8S_ROOT/bin/k6
[[ -x $k6 ]] || { echo "k8s images: $k6 missing: run scripts/build.sh first" >&2; exit 1; }
file "$k6" | grep -q 'statically linked' || { echo "k8s images: $k6 is not static" >&2; exit 1; }

# oci NAME TAG ROOTFS_FN CONFIG_ARGS...: a one-layer image from a function that fills the rootfs.
oci() {
  local name=$1 tag=$2 fill=$3; shift 3
  local lay=$out/$name
  rm -rf "$lay" "$lay.bundle"
  umoci init --layout "$lay"
  umoci new --image "$lay:$tag"
  umoci unpack --image "$lay:$tag" "$lay.bundle" >/dev/null
  "$fill" "$lay.bundle/rootfs"
  umoci repack --image "$lay:$tag" "$lay.bundle"
  rm -rf "$lay.bundle"
  umoci config --image "$lay:$tag" "$@"
  umoci gc --layout "$lay"
  tar -C "$lay" -cf "$lay.oci.tar" .
}

fill_pause() {
  local src
  src=$(cd "$K8S_ROOT/k8s/e2e/kube" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c
  gcc -Os -static -DVERSION=v3.10-mqbench -o "$1/pause" "$src"
  strip "$1/pause"
}
fill_k6() {
  local r=$1 lib
  install -D -m 0755 "$k6" "$r/usr/bin/k6"
  install -D -m 0755 /bin/busybox "$r/bin/busybox"
  for a in sh cat cp grep mkdir ls rm sleep env echo test true false wc head tail tr date id; do
    ln -s busybox "$r/bin/$a"
  done
  install -D -m 0755 /usr/bin/curl "$r/usr/bin/curl"
  # curl's shared libraries and loader, at their own paths.
  for lib in $(ldd /usr/bin/curl | grep -o '/[^ ]*'); do
    install -D -m 0755 "$(readlink -f "$lib")" "$r$lib"
  done
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/ca-certificates.crt"
  printf 'root:x:0:0::/root:/bin/sh\nk6:x:12345:12345::/tmp:/bin/sh\n' >"$r/etc/passwd"
  printf 'root:x:0:\nk6:x:12345:\n' >"$r/etc/group"
  install -d -m 1777 "$r/tmp"
  install -d -m 0755 "$r/home/k6"
}
if ! { [[ -x /bin/busybox ]] && /bin/busybox --list | grep -qx sh; }; then
  echo "k8s images: busybox-static missing (scripts/k8s/install.sh)" >&2
  exit 1
fi

oci pause 3.10 fill_pause --config.entrypoint /pause --config.user 65535:65535
oci mqbench-k6 e2e fill_k6 --config.env PATH=/usr/bin:/bin --config.env HOME=/tmp \
  --config.env K6_NO_USAGE_REPORT=true --config.env K6_AUTO_EXTENSION_RESOLUTION=false \
  --config.user 12345:12345 --config.workingdir /tmp

ctr -a "$CONTAINERD_SOCK" -n k8s.io images import --base-name registry.k8s.io/pause "$out/pause.oci.tar" >/dev/null
ctr -a "$CONTAINERD_SOCK" -n k8s.io images import --base-name docker.io/library/mqbench-k6 "$out/mqbench-k6.oci.tar" >/dev/null
ctr -a "$CONTAINERD_SOCK" -n k8s.io images ls -q | grep -E 'pause:3.10|mqbench-k6:e2e' >&2
