# shellcheck shell=bash
# Sourced by scripts/k8s/*: where the single-node cluster of make k8s-e2e keeps its binaries,
# state and logs, and the versions it is built from (the Go modules in k8s/e2e pin them).
K8S_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export K8S_ROOT
# Binaries and the Go caches live under .cache so a later build reuses them.
export K8S_CACHE=${K8S_CACHE:-$K8S_ROOT/.cache/k8s-go}
export GOMODCACHE=${GOMODCACHE:-$K8S_CACHE/mod}
export GOCACHE=${GOCACHE:-$K8S_CACHE/build}
export K8S_BIN=$K8S_CACHE/bin
# Cluster state (etcd data, certificates, kubelet and containerd roots) is thrown away each run.
export K8S_STATE=${K8S_STATE:-/var/lib/mqbench-k8s}
export KUBECONFIG=$K8S_STATE/pki/admin.kubeconfig
export KUBE_VERSION=v1.34.4
export PATH=$K8S_BIN:$PATH
# Builds run at the lowest CPU and I/O priority: the machine may be shared.
nicely() { nice -n 19 ionice -c3 "$@"; }
