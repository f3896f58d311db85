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
# Addresses: every listener on 127.0.0.1. Pods live on their own bridge (K8S_POD_CIDR) in network
# namespaces on this machine; Services are virtual addresses (K8S_SVC_CIDR) that kube-proxy's
# rules turn into pod addresses on this machine.
export K8S_API_PORT=6443
export K8S_BRIDGE=mqbe2e0
export K8S_POD_CIDR=10.244.77.0/24
export K8S_POD_GW=10.244.77.1
export K8S_SVC_CIDR=10.96.0.0/16
export K8S_SVC_FIRST=10.96.0.1
export K8S_NODE=localhost
export CONTAINERD_SOCK=/run/mqbench-k8s/containerd.sock
# Pods reach the broker on the host's 127.0.0.1:$K8S_BROKER_PORT at $K8S_POD_GW:$K8S_BROKER_PORT.
export K8S_BROKER_PORT=${K8S_BROKER_PORT:-4222}
