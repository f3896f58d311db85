package k8s

import (
	"fmt"
	"path"
	"slices"
	"time"
)

// DefaultImage is the runner image `make image` builds (scripts/image/build.sh: entrypoint
// `k6 x mqbench run`, a shell for the operator's initializer), which a single-runner Job runs
// unless --image says otherwise. A TestRun of several runners always names its image with
// --image: the same image, pushed to a registry its nodes pull from.
const DefaultImage = "mqbench-k6:local"

// One runner needs no k6-operator: a plain Job runs the image's `k6 x mqbench run` on the
// scenario from the ConfigMap and writes a whole results folder (no shard, no merge); the
// Job's exit code is the run's.

// GenerateSingle writes a single-runner run's manifests in apply order: the results claim
// (ReadWriteOnce is enough for one pod), the ConfigMap with the scenario (and its payload
// file), and the Job.
func GenerateSingle(c Config) ([]byte, error) {
	head := fmt.Sprintf("# mqbench on Kubernetes, one runner: scenario %s, run %s (a plain Job, no k6-operator).\n", c.ScenarioName, c.RunID) +
		fmt.Sprintf("# Written by `k6 x mqbench k8s --runners 1`; results go to %s on claim %s.\n", path.Join(ResultsDir, c.ScenarioName), c.PVC)
	var docs []any
	if c.CreatePVC {
		p := c.pvc()
		p.Spec.AccessModes = []string{"ReadWriteOnce"}
		docs = append(docs, p)
	}
	cm := c.configMap()
	delete(cm.Data, ScriptKey) // the image embeds the entry script
	return stream(head, append(docs, cm, c.singleJob()))
}

// singleJob runs the image's entrypoint (`k6 x mqbench run`) on the mounted scenario, once:
// no retry (a second run would be another measurement), the pod's exit code the run's.
func (c Config) singleJob() Job {
	zero := int32(0)
	vols := append(c.resultsVolume(), Volume{Name: scriptVolume, ConfigMap: &LocalRef{Name: c.ScriptName()}})
	mounts := append(c.resultsMount(), VolumeMount{Name: scriptVolume, MountPath: ScriptDir, ReadOnly: true})
	return Job{APIVersion: "batch/v1", Kind: "Job", Metadata: c.meta(c.RunID),
		Spec: JobSpec{BackoffLimit: &zero, Template: PodTemplate{
			Metadata: PodMeta{Labels: c.labels()},
			Spec: PodSpec{RestartPolicy: "Never", SecurityContext: c.securityContext(),
				Containers: []Container{{Name: "mqbench", Image: c.Image,
					Args:      c.SingleArgs(),
					Env:       k6Env(),
					EnvFrom:   c.envFrom(),
					Resources: c.resources(), VolumeMounts: mounts}},
				Volumes: vols}}}}
}

// SingleArgs are the arguments of the image's `k6 x mqbench run`: the scenario in the
// ConfigMap, the results folder on the claim, then the user's k6 run flags.
func (c Config) SingleArgs() []string {
	return append([]string{path.Join(ScriptDir, c.ScenarioFile), "--results", ResultsDir}, c.K6Args...)
}

// CheckSingle lists what would make a single-runner run's manifests fail: one Job that runs
// the scenario its ConfigMap holds, writes to a claim, and runs once.
func CheckSingle(m *Manifests) []string {
	var p problems
	if len(m.TestRuns) != 0 || len(m.Jobs) != 1 {
		p.add("expected one Job and no TestRun, got %d Jobs and %d TestRuns", len(m.Jobs), len(m.TestRuns))
		return p
	}
	p.checkMeta(m)
	j := m.Jobs[0]
	where := "Job " + j.Metadata.Name
	s := j.Spec.Template.Spec
	if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 || s.RestartPolicy != "Never" {
		p.add("%s: backoffLimit 0 and restartPolicy Never are required: a retried run is a second measurement", where)
	}
	if len(s.Containers) != 1 {
		p.add("%s: expected one container, got %d", where, len(s.Containers))
		return p
	}
	ct := s.Containers[0]
	if msg := CheckImage(ct.Image); msg != "" {
		p.add("%s: image: %s", where, msg)
	}
	p.checkResources(where+": resources", ct.Resources)
	if len(ct.Command) != 0 {
		p.add("%s: command is set: the image's entrypoint (k6 x mqbench run) must run", where)
	}
	if len(ct.Args) < 3 || ct.Args[1] != "--results" {
		p.add("%s: args %q: expected SCENARIO --results DIR [k6 run flags]", where, ct.Args)
		return p
	}
	for _, msg := range CheckK6Args(ct.Args[3:]) {
		p.add("%s: args: %s", where, msg)
	}
	claim := p.checkResultsMount(where, ct.Args[2], s.Volumes, ct.VolumeMounts, false)
	scenario := ct.Args[0]
	if path.Dir(scenario) != ScriptDir || !mountsAnyConfigMap(s.Volumes, ct.VolumeMounts) {
		p.add("%s: the scenario %s is not in the ConfigMap mounted at %s", where, scenario, ScriptDir)
	}
	found := false
	for _, cm := range m.ConfigMaps {
		if _, ok := cm.Files()[path.Base(scenario)]; ok && mountsConfigMap(s.Volumes, ct.VolumeMounts, cm.Metadata.Name) {
			found = true
		}
	}
	if !found {
		p.add("%s: no ConfigMap mounted at %s holds %s", where, ScriptDir, path.Base(scenario))
	}
	p.checkPVCs(m, claim, false)
	return p
}

func mountsAnyConfigMap(vols []Volume, mounts []VolumeMount) bool {
	return slices.ContainsFunc(vols, func(v Volume) bool { return v.ConfigMap != nil && mountsConfigMap(vols, mounts, v.ConfigMap.Name) })
}

// SingleInstructions is the bash script that runs a single-runner run (file) and exits with
// the Job's exit code, the run's verdict.
func SingleInstructions(c Config, file string, runLength time.Duration, warnings []string) string {
	timeout := (runLength + schedulingAllowance + time.Minute - 1).Truncate(time.Minute)
	var sw scriptWriter
	w := sw.line
	w("#!/usr/bin/env bash")
	w("# %s on Kubernetes, one runner: run %s, a plain Job (generated by k6 x mqbench k8s --runners 1).", c.ScenarioName, c.RunID)
	w("# Needs: kubectl for the cluster; image %s pullable by the nodes (make image, then push", c.Image)
	w("# or load it into the cluster); the broker reachable from the pod.")
	if c.EnvSecret != "" {
		w("# The Secret %s (the broker credentials the scenario names), in namespace %s.", c.EnvSecret, c.Namespace)
	}
	for _, warn := range warnings {
		w("# WARNING: %s", warn)
	}
	w("set -euo pipefail")
	w("ns=%s run=%s manifests=%s", shellQuote(c.Namespace), shellQuote(c.RunID), shellQuote(file))
	w("claim=%s dir=%s", shellQuote(c.PVC), shellQuote(path.Join(ResultsDir, c.ScenarioName)))
	w("")
	w("# 1. The results claim, the ConfigMap (the scenario) and the Job, which starts at once.")
	w(`kubectl apply -n "$ns" -f "$manifests"`)
	w("")
	w("# 2. Wait for it to end (passed or failed): the cells' %s and %s for scheduling and the image pull.", runLength.Round(time.Second), schedulingAllowance)
	w("deadline=$((SECONDS + %d))", int(timeout.Seconds()))
	w(`until kubectl get -n "$ns" "job/$run" -o jsonpath='{.status.conditions[?(@.status=="True")].type}' | grep -qwE 'Complete|Failed'; do`)
	w(`  (( SECONDS < deadline )) || { echo "mqbench: the Job did not end within %s" >&2; exit 1; }`, timeout)
	w("  sleep 2")
	w("done")
	w(`kubectl logs -n "$ns" "job/$run"`)
	w("")
	w("# 3. Its exit code is the run's: 0 every threshold held, 99 a threshold failed, 111 invalid")
	w("#    scenario, 112 broker unreachable, 113 refused.")
	w(`code=$(kubectl get pods -n "$ns" -l "job-name=$run" -o jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode}')`)
	w(`echo "mqbench: run $run exited $code; results on claim $claim under $dir" >&2`)
	w(`#   kubectl delete -n "$ns" "job/$run" "configmap/$run-script"   (when done with the run)`)
	w(`exit "$code"`)
	return sw.String()
}
