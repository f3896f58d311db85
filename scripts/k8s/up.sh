#!/usr/bin/env bash
# Brings up the single-node cluster of make k8s-e2e from the binaries of scripts/k8s/build.sh:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd (runc, bridge CNI),
# kubelet (cgroupfs driver), kube-proxy (iptables), then the k6-operator as a process outside
# the cluster with its CRDs applied from its module's files. Every process runs at the lowest
# CPU priority, writes $K8S_STATE/log/<name>.log and $K8S_STATE/run/<name>.pid; down.sh stops them.
set -euo pipefail
. "$(dirname "$0")/env.sh"
log=$K8S_STATE/log run=$K8S_STATE/run p=$K8S_STATE/pki
[[ -e $run/etcd.pid ]] && { echo "k8s up: a cluster is up already ($run); scripts/k8s/down.sh first" >&2; exit 1; }
rm -rf "$K8S_STATE"
mkdir -p "$log" "$run" /run/mqbench-k8s
"$(dirname "$0")/pki.sh"
t0=$(date +%s)

# start NAME CMD...: runs CMD in the background at idle priority.
start() {
  local name=$1; shift
  nice -n 19 "$@" >"$log/$name.log" 2>&1 &
  echo $! >"$run/$name.pid"
}
# wait_for WHAT SECONDS CMD...: polls CMD until it succeeds.
wait_for() {
  local what=$1 secs=$2; shift 2
  for ((i = 0; i < secs * 2; i++)); do
    "$@" >/dev/null 2>&1 && { echo "k8s up: $what ready ($(( $(date +%s) - t0 ))s)" >&2; return; }
    sleep 0.5
  done
  echo "k8s up: $what not ready after ${secs}s; see $log" >&2
  exit 1
}

start etcd etcd --name e2e --data-dir "$K8S_STATE/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster e2e=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381
wait_for etcd 60 curl -sf http://127.0.0.1:2381/health

# --endpoint-reconciler-type=none: the API server listens on 127.0.0.1 only, and an Endpoints
# object may not hold a loopback address; nothing in the pods talks to the API server.
start kube-apiserver kube-apiserver --etcd-servers http://127.0.0.1:2379 \
  --bind-address 127.0.0.1 --secure-port "$K8S_API_PORT" --advertise-address 127.0.0.1 \
  --endpoint-reconciler-type none \
  --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" --client-ca-file "$p/ca.crt" \
  --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
  --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range "$K8S_SVC_CIDR" \
  --authorization-mode RBAC --allow-privileged=true \
  --kubelet-client-certificate "$p/admin.crt" --kubelet-client-key "$p/admin.key" \
  --kubelet-preferred-address-types Hostname
wait_for kube-apiserver 180 kubectl get --raw /readyz

start kube-controller-manager kube-controller-manager --kubeconfig "$KUBECONFIG" \
  --bind-address 127.0.0.1 --leader-elect=false --root-ca-file "$p/ca.crt" \
  --service-account-private-key-file "$p/sa.key" --service-cluster-ip-range "$K8S_SVC_CIDR" \
  --use-service-account-credentials=false --allocate-node-cidrs=false
start kube-scheduler kube-scheduler --kubeconfig "$KUBECONFIG" --bind-address 127.0.0.1 --leader-elect=false

# containerd: its own configuration, state and socket, beside any system instance.
cdir=$K8S_STATE/containerd cni=$K8S_STATE/cni
mkdir -p "$cdir" "$cni"
cat >"$cdir/config.toml" <<TOML
version = 2
root = "$cdir/root"
state = "/run/mqbench-k8s/containerd"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  # The kubelet asks for negative OOM scores (pause -998, Guaranteed pods -997); lowering a score
  # needs CAP_SYS_RESOURCE, which root may lack (a sandboxed host), and the runtime then fails to
  # create any pod. This keeps every score at or above containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$cni"
TOML
# The bridge exists before the first pod, so the broker's forwarding rule can name it.
# No masquerading, and pods get a route to the Service addresses only (no default route): they
# reach the bridge, its gateway (the host) and the Services, nothing beyond this machine.
cat >"$cni/10-mqbench-e2e.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "mqbench-e2e", "plugins": [
  {"type": "bridge", "bridge": "$K8S_BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$K8S_POD_CIDR", "gateway": "$K8S_POD_GW"}]],
            "routes": [{"dst": "$K8S_SVC_CIDR"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
JSON
ip link show "$K8S_BRIDGE" >/dev/null 2>&1 || ip link add "$K8S_BRIDGE" type bridge
ip addr replace "$K8S_POD_GW/${K8S_POD_CIDR#*/}" dev "$K8S_BRIDGE"
ip link set "$K8S_BRIDGE" up
# The broker listens on the host's 127.0.0.1 only: a packet from a pod to the bridge's address
# and the broker's port is rewritten to 127.0.0.1, which route_localnet allows on this bridge only.
# Forwarding: a pod's packet to a Service address is rewritten on the host and sent back onto
# the bridge.
# The kubelet also sets three kernel settings it expects (overcommit, panic on oops); all of
# these are saved here and put back by down.sh.
sysctl net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables vm.overcommit_memory kernel.panic \
  kernel.panic_on_oops | tr -d ' ' >"$run/sysctl"
sysctl -qw "net.ipv4.conf.$K8S_BRIDGE.route_localnet=1" net.bridge.bridge-nf-call-iptables=1 net.ipv4.ip_forward=1
iptables -t nat -N MQBENCH-E2E 2>/dev/null || iptables -t nat -F MQBENCH-E2E
iptables -t nat -C PREROUTING -j MQBENCH-E2E 2>/dev/null || iptables -t nat -I PREROUTING -j MQBENCH-E2E
iptables -t nat -A MQBENCH-E2E -i "$K8S_BRIDGE" -d "$K8S_POD_GW" -p tcp --dport "$K8S_BROKER_PORT" \
  -j DNAT --to-destination "127.0.0.1:$K8S_BROKER_PORT"
# Nothing from the pods or to a Service address leaves this machine: Service addresses route to
# the bridge (a packet kube-proxy has not rewritten yet stays local), and forwarded packets
# from the pods may only go back onto the bridge.
ip route replace "$K8S_SVC_CIDR" dev "$K8S_BRIDGE"
iptables -N MQBENCH-E2E-FWD 2>/dev/null || iptables -F MQBENCH-E2E-FWD
iptables -C FORWARD -j MQBENCH-E2E-FWD 2>/dev/null || iptables -I FORWARD -j MQBENCH-E2E-FWD
iptables -A MQBENCH-E2E-FWD -s "$K8S_POD_CIDR" ! -o "$K8S_BRIDGE" -j DROP
start containerd containerd --config "$cdir/config.toml"
wait_for containerd 60 ctr -a "$CONTAINERD_SOCK" version
"$(dirname "$0")/images.sh"

kdir=$K8S_STATE/kubelet
mkdir -p "$kdir"
cat >"$kdir/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failSwapOn: false
address: 127.0.0.1
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $p/ca.crt}
authorization: {mode: Webhook}
serializeImagePulls: false
# The machine is shared: disk and memory pressure from others must not evict the run's pods.
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
YAML
start kubelet kubelet --config "$kdir/config.yaml" --kubeconfig "$KUBECONFIG" --root-dir "$kdir/root" \
  --hostname-override "$K8S_NODE"
wait_for "node $K8S_NODE" 180 kubectl wait --for=condition=Ready "node/$K8S_NODE" --timeout=1s

start kube-proxy kube-proxy --kubeconfig "$KUBECONFIG" --proxy-mode iptables --hostname-override "$K8S_NODE" \
  --cluster-cidr "$K8S_POD_CIDR" --bind-address 127.0.0.1 --metrics-bind-address 127.0.0.1:10249 \
  --healthz-bind-address 127.0.0.1:10256 --iptables-localhost-nodeports=false --conntrack-max-per-core 0 \
  --conntrack-tcp-timeout-established 0 --conntrack-tcp-timeout-close-wait 0
wait_for kube-proxy 60 curl -sf http://127.0.0.1:10256/healthz

# The operator: CRDs from its module's own files, then the manager with the admin kubeconfig.
op=$(cd "$K8S_ROOT/k8s/e2e/operator" && go list -m -f '{{.Dir}}' github.com/grafana/k6-operator)
kubectl apply --server-side -f "$op/config/crd/bases/" >/dev/null
wait_for "TestRun CRD" 60 kubectl wait --for=condition=Established crd/testruns.k6.io --timeout=1s
# The operator reads the initializer's log with rest.InClusterConfig() (v1.5.0,
# internal/controller/common.go), whatever its kubeconfig: outside the cluster that needs the
# KUBERNETES_SERVICE_* variables and a service-account token and CA at the in-cluster paths.
# down.sh removes them; up.sh refuses to overwrite any that exist.
sa=/var/run/secrets/kubernetes.io/serviceaccount
[[ -e $sa && ! -e $run/sa-files ]] && { echo "k8s up: $sa exists already; not overwriting it" >&2; exit 1; }
kubectl create serviceaccount -n default k6-operator >/dev/null
kubectl create clusterrolebinding k6-operator --clusterrole cluster-admin --serviceaccount default:k6-operator >/dev/null
mkdir -p "$sa" && touch "$run/sa-files"
kubectl create token -n default k6-operator --duration 4h >"$sa/token"
cp "$p/ca.crt" "$sa/ca.crt"
echo default >"$sa/namespace"
export KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$K8S_API_PORT
start k6-operator k6-operator --metrics-bind-address 127.0.0.1:18080 --health-probe-bind-address 127.0.0.1:18081
wait_for k6-operator 60 curl -sf http://127.0.0.1:18081/healthz
echo "k8s up: cluster ready in $(( $(date +%s) - t0 ))s (KUBECONFIG=$KUBECONFIG)" >&2
