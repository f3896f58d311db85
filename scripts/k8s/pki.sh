#!/usr/bin/env bash
# Writes the single-node cluster's certificates and kubeconfig under $K8S_STATE/pki with
# openssl: a self-signed CA, the API server's serving certificate (127.0.0.1, localhost and
# the first Service address), one client certificate in system:masters that every component,
# the operator and kubectl use (a throwaway test cluster: no per-component identities), and
# the service-account signing key pair.
set -euo pipefail
. "$(dirname "$0")/env.sh"
p=$K8S_STATE/pki
mkdir -p "$p"
cd "$p"
ossl() { openssl "$@" 2>/dev/null; }
ossl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=mqbench-e2e-ca
cert() { # name subject [subjectAltName]
  ossl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
  local ext=extendedKeyUsage=clientAuth,serverAuth
  [[ -n ${3:-} ]] && ext+=$'\n'"subjectAltName=$3"
  ossl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 2 -extfile <(echo "$ext")
  rm "$1.csr"
}
cert apiserver /CN=kube-apiserver "IP:127.0.0.1,IP:$K8S_SVC_FIRST,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
cert admin "/O=system:masters/CN=mqbench-e2e-admin"
ossl genrsa -out sa.key 2048
ossl rsa -in sa.key -pubout -out sa.pub
cat >admin.kubeconfig <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://127.0.0.1:$K8S_API_PORT", certificate-authority: $p/ca.crt}
users:
- name: admin
  user: {client-certificate: $p/admin.crt, client-key: $p/admin.key}
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
KC
