#!/usr/bin/env bash
# make k8s-e2e: builds and brings up a single-node Kubernetes with the real k6-operator
# (scripts/k8s/{install,build,up}.sh), generates the manifests of a 2-runner run with
# `k6 x mqbench k8s`, runs them with the script that command writes (apply, wait for the
# TestRun, merge Job) against the NATS server on 127.0.0.1:4222, and exits with the merged
# verdict. The cluster is stopped and cleaned up on every exit (scripts/k8s/down.sh);
# K8S_KEEP=1 leaves it up for a look (then run down.sh yourself).
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$K8S_ROOT"
t0=$(date +%s)
stamp() { echo "k8s e2e: $1 ($(( $(date +%s) - t0 ))s)" >&2; }
(exec 3<>"/dev/tcp/127.0.0.1/$K8S_BROKER_PORT") 2>/dev/null ||
  { echo "k8s e2e: no NATS server on 127.0.0.1:$K8S_BROKER_PORT (scripts/brokers/start.sh nats)" >&2; exit 112; }
scripts/k8s/install.sh
nicely scripts/build.sh
scripts/k8s/build.sh
stamp "binaries ready"
[[ ${K8S_KEEP:-} == 1 ]] || trap 'scripts/k8s/down.sh' EXIT
scripts/k8s/up.sh
stamp "cluster up"

# Storage: a ReadWriteMany volume on this node's disk, bound statically to the run's claim.
# hostPath ignores fsGroup, so the folder is writable by everyone (the pods run as 12345).
res=$K8S_STATE/results
install -d -m 1777 "$res"
kubectl apply -f - >/dev/null <<YAML
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: mqbench-e2e}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: mqbench-e2e-results}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteMany]
  storageClassName: mqbench-e2e
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: $res, type: Directory}
YAML

# The project's manifests, as a user generates them; one node, so no anti-affinity, and two
# half-CPU runners leave room for the starter and the merge Job on two cores.
run=$K8S_STATE/run.yaml
bin/k6 x mqbench k8s k8s/e2e/k8s-e2e-nats.yaml --runners 2 --image mqbench-k6:e2e \
  --starter-image mqbench-k6:e2e --separate=false --storage-class mqbench-e2e \
  --cpu 500m --memory 512Mi --start-slack 10s -o "$run" 2>"$K8S_STATE/run.sh"
stamp "manifests generated ($run)"
set +e
bash "$K8S_STATE/run.sh"
rc=$?
set -e
stamp "run.sh exited $rc"
kubectl get testruns.k6.io,jobs,pods -o wide >&2 || true
# The merge writes <scenario>/<run id>/summary.json; the runners' shards lie one level deeper.
summary=$(find "$res" -mindepth 3 -maxdepth 3 -name summary.json -newer "$run" | head -1)
if [[ -n $summary ]]; then
  mkdir -p results/k8s-e2e
  cp -r "$(dirname "$summary")" results/k8s-e2e/
  echo "k8s e2e: merged results copied to results/k8s-e2e/$(basename "$(dirname "$summary")")" >&2
fi
exit "$rc"
