#!/usr/bin/env bash
# Builds the single-node cluster's binaries from Go modules into .cache/k8s-go/bin:
# kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, kubelet, kubectl
# (k8s/e2e/kube), etcd (k8s/e2e/etcd) and the k6-operator (k8s/e2e/operator).
# Each module pins one version; a binary already built from the same go.sum is kept.
set -euo pipefail
. "$(dirname "$0")/env.sh"
mkdir -p "$K8S_BIN"
start=$(date +%s)
export CGO_ENABLED=0 GOFLAGS=-mod=mod

# Arguments name the binaries to build (default: all), e.g. to build some in parallel.
only=" $* "
# build MODULE_DIR NAME PACKAGE [LDFLAGS]: one binary, skipped when its stamp matches go.sum.
build() {
  local dir=$1 name=$2 pkg=$3 ldflags=${4:-} stamp
  [[ $only == "  " || $only == *" $name "* ]] || return 0
  stamp=$(cat "$K8S_ROOT/$dir/go.mod" "$K8S_ROOT/$dir/go.sum" | sha256sum | cut -c1-16)
  if [[ -x $K8S_BIN/$name && $(cat "$K8S_BIN/.$name.stamp" 2>/dev/null) == "$stamp" ]]; then
    return
  fi
  local t
  t=$(date +%s)
  (cd "$K8S_ROOT/$dir" && nicely go build -trimpath -ldflags "$ldflags" -o "$K8S_BIN/$name" "$pkg")
  echo "$stamp" >"$K8S_BIN/.$name.stamp"
  echo "k8s build: $name ($(( $(date +%s) - t ))s)" >&2
}

# Without these the binaries call themselves v0.0.0-master, which version-skew checks reject.
minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
kv="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1"
kv+=" -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
kv+=" -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1"
kv+=" -X k8s.io/client-go/pkg/version.gitMinor=$minor"
for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubectl; do
  build k8s/e2e/kube "$c" "k8s.io/kubernetes/cmd/$c" "$kv"
done
build k8s/e2e/etcd etcd go.etcd.io/etcd/server/v3
build k8s/e2e/operator k6-operator github.com/grafana/k6-operator/cmd
echo "k8s build: done ($(( $(date +%s) - start ))s)" >&2
