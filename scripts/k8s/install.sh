#!/usr/bin/env bash
# Installs, from Debian's packages, what the single-node cluster of make k8s-e2e runs on:
# containerd (1.6) with runc, the CNI plugins (bridge, host-local, loopback, portmap),
# iptables and conntrack (kube-proxy's Service rules), umoci (images without a daemon),
# busybox-static (the shell the operator's initializer and starter need in the image),
# curl (the starter resumes the runners with it), openssl (the cluster's certificates),
# gcc and libc6-dev (the static pause binary), file (checks bin/k6 is static).
# containerd is not started here: scripts/k8s/up.sh runs its own instance with its own
# configuration and socket.
set -euo pipefail
pkgs=(containerd runc containernetworking-plugins iptables conntrack umoci busybox-static curl openssl gcc libc6-dev file)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get update -qq
  # policy-rc.d refusing (101) keeps the package from starting a system containerd.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for b in containerd containerd-shim-runc-v2 ctr runc iptables conntrack umoci; do
  command -v "$b" >/dev/null || { echo "k8s install: $b missing after install" >&2; exit 1; }
done
for p in bridge host-local loopback portmap; do
  [[ -x /usr/lib/cni/$p ]] || { echo "k8s install: CNI plugin $p missing in /usr/lib/cni" >&2; exit 1; }
done
echo "k8s install: $(containerd --version | awk '{print $3}') containerd, $(runc --version | head -1), $(iptables --version)" >&2
