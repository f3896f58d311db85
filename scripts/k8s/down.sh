#!/usr/bin/env bash
# Stops the single-node cluster of scripts/k8s/up.sh and removes what it left on the machine:
# pods (through the kubelet while it still runs, so the CNI releases their addresses), then
# every process by the pid it recorded, containers, kubelet mounts, network namespaces, the
# bridge, the iptables rules (kube-proxy --cleanup and the broker's forwarding chain) and the
# pods' cgroups. Safe to run twice, or after a failed up.sh.
set -uo pipefail
. "$(dirname "$0")/env.sh"
run=$K8S_STATE/run
ctr_() { ctr -a "$CONTAINERD_SOCK" -n k8s.io "$@"; }
alive() { [[ -e $run/$1.pid ]] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null; }
stop() { # stop NAME: SIGTERM, then SIGKILL after 15 s.
  alive "$1" || { rm -f "$run/$1.pid"; return 0; }
  local pid; pid=$(cat "$run/$1.pid")
  kill "$pid" 2>/dev/null
  for ((i = 0; i < 30; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null
  rm -f "$run/$1.pid"
}

stop k6-operator
if alive kube-apiserver && alive kubelet; then
  kubectl delete testruns.k6.io,jobs,pods --all --all-namespaces --wait=false >/dev/null 2>&1
  for ((i = 0; i < 60; i++)); do
    [[ -z $(kubectl get pods -A -o name 2>/dev/null) ]] && break
    sleep 1
  done
fi
stop kubelet
if alive containerd; then
  for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
  sleep 1
  for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$t" >/dev/null 2>&1; done
  for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$c" >/dev/null 2>&1; done
fi
stop containerd
# Shims outlive containerd: end those whose containerd socket was ours.
for pid in $(pgrep -f containerd-shim-runc-v2 2>/dev/null); do
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "-address $CONTAINERD_SOCK" && kill -9 "$pid"
done
alive kube-proxy && kube-proxy --cleanup >/dev/null 2>&1
stop kube-proxy
for n in kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$n"; done
# Mounts under the cluster's state and run folders, deepest first.
grep -E " ($K8S_STATE|/run/mqbench-k8s)" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do
  umount -l "$m" 2>/dev/null
done
for ns in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do ip netns delete "$ns"; done
ip link delete "$K8S_BRIDGE" 2>/dev/null
# The kubelet's own chains (KUBE-FIREWALL, KUBE-KUBELET-CANARY), which kube-proxy --cleanup
# leaves: first the rules that jump to them, then the chains.
for ipt in iptables ip6tables; do
  for t in filter nat mangle; do
    "$ipt" -t "$t" -S 2>/dev/null | grep -E '^-A [A-Z]+ .*-j KUBE-' | grep -vE '^-A KUBE-' | while read -r -a rule; do
      "$ipt" -t "$t" -D "${rule[@]:1}" 2>/dev/null
    done
    for c in $("$ipt" -t "$t" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
      "$ipt" -t "$t" -F "$c" 2>/dev/null
    done
    for c in $("$ipt" -t "$t" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
      "$ipt" -t "$t" -X "$c" 2>/dev/null
    done
  done
done
iptables -t nat -D PREROUTING -j MQBENCH-E2E 2>/dev/null
iptables -t nat -F MQBENCH-E2E 2>/dev/null && iptables -t nat -X MQBENCH-E2E 2>/dev/null
iptables -D FORWARD -j MQBENCH-E2E-FWD 2>/dev/null
iptables -F MQBENCH-E2E-FWD 2>/dev/null && iptables -X MQBENCH-E2E-FWD 2>/dev/null
[[ -e $run/sa-files ]] && rm -rf /var/run/secrets/kubernetes.io/serviceaccount && rmdir -p /var/run/secrets/kubernetes.io 2>/dev/null
rm -f "$run/sa-files"
# The kernel settings up.sh found (the kubelet and the forwarding changed some).
if [[ -s $run/sysctl ]]; then
  xargs -a "$run/sysctl" sysctl -qw && rm -f "$run/sysctl"
fi
# The kubelet's cgroups (cgroup v1: one tree per controller), leaves first.
for c in /sys/fs/cgroup/*/kubepods; do
  [[ -d $c ]] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null
done
echo "k8s down: stopped" >&2
