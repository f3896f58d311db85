package k8s

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// MaxConfigMapBytes is the API server's limit on a ConfigMap's keys and values together.
const MaxConfigMapBytes = 1 << 20

// operatorFlags are the k6 flags the operator itself puts on every runner's argv
// (pkg/resources/jobs/runner.go): given in the TestRun too, a runner would get them twice
// and the split, the paused start or the REST address would no longer be the operator's.
var operatorFlags = []string{"--execution-segment", "--execution-segment-sequence", "--paused", "-p", "--address", "-a"}

// breakingFlags would break an mqbench runner: setup() connects and lines the runners up,
// teardown() closes; without them there is no run to merge.
var breakingFlags = []string{"--no-setup", "--no-teardown"}

// requiredEnv are the variables every runner needs, with the value when it is fixed.
var requiredEnv = map[string]string{runenv.Scenario: "", runenv.Runners: "", runenv.RunID: "", runenv.Results: "",
	runenv.StartSlack: "", "K6_NO_USAGE_REPORT": "true", "K6_AUTO_EXTENSION_RESOLUTION": "false"}

type problems []string

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Sprintf(format, a...)) }

// Check lists what would make the manifests fail on a cluster, or make the run not one
// mqbench run: the same rules the generator follows, checked on its output (and on any
// hand-edited copy). Nil means no problem was found.
func Check(m *Manifests) []string {
	var p problems
	if len(m.TestRuns) != 1 {
		p.add("expected exactly one TestRun, got %d", len(m.TestRuns))
		return p
	}
	tr := m.TestRuns[0]
	s, name := tr.Spec, tr.Metadata.Name
	tp := "TestRun " + name
	p.checkMeta(m)
	if s.Parallelism < 2 {
		p.add("%s: spec.parallelism: %d; a distributed run needs at least 2 runners", tp, s.Parallelism)
	}
	if msg := CheckRunID(name, int(s.Parallelism)); msg != "" {
		p.add("%s: metadata.name: %s", tp, msg)
	}
	p.checkArgs(tp, s)
	env := p.checkEnv(tp+": spec.runner", s.Runner.Env)
	if v, ok := env[runenv.Runners]; ok && v != strconv.Itoa(int(s.Parallelism)) {
		p.add("%s: spec.runner.env %s=%q but spec.parallelism is %d: each runner would take the wrong share", tp, runenv.Runners, v, s.Parallelism)
	}
	if v, ok := env[runenv.RunID]; ok && v != name {
		p.add("%s: spec.runner.env %s=%q: expected the TestRun's name %q (the merge Job finds the shards by it)", tp, runenv.RunID, v, name)
	}
	if msg := CheckImage(s.Runner.Image); msg != "" {
		p.add("%s: spec.runner.image: %s", tp, msg)
	}
	p.checkResources(tp+": spec.runner.resources", s.Runner.Resources)
	claim := p.checkResultsMount(tp+": spec.runner", env[runenv.Results], s.Runner.Volumes, s.Runner.VolumeMounts, true)
	p.checkInitializer(tp, s)
	if s.Starter != nil {
		if msg := CheckImage(s.Starter.Image); msg != "" {
			p.add("%s: spec.starter.image: %s", tp, msg)
		}
	}
	cm := p.checkScript(tp, m, s.Script, env[runenv.Scenario])
	if cm != nil {
		p.checkConfigMap(*cm, s.Script.ConfigMap.File)
	}
	p.checkPVCs(m, claim, true)
	p.checkMerge(m, name, s.Runner, env)
	return p
}

// checkMeta: every object's name is a DNS-1123 label, and all share one namespace (the
// ConfigMap, the claim and the TestRun must be in the same namespace to be found).
func (p *problems) checkMeta(m *Manifests) {
	var metas []struct{ kind, name, ns string }
	add := func(kind string, mt Meta) {
		metas = append(metas, struct{ kind, name, ns string }{kind, mt.Name, mt.Namespace})
	}
	for _, x := range m.TestRuns {
		add("TestRun", x.Metadata)
	}
	for _, x := range m.ConfigMaps {
		add("ConfigMap", x.Metadata)
	}
	for _, x := range m.PVCs {
		add("PersistentVolumeClaim", x.Metadata)
	}
	for _, x := range m.Jobs {
		add("Job", x.Metadata)
	}
	for _, x := range metas {
		if msg := CheckLabel(x.name); msg != "" {
			p.add("%s %s: metadata.name: %s", x.kind, x.name, msg)
		}
		if x.ns != "" {
			if msg := CheckLabel(x.ns); msg != "" {
				p.add("%s %s: metadata.namespace: %s", x.kind, x.name, msg)
			}
		}
		if x.ns != metas[0].ns {
			p.add("%s %s: metadata.namespace %q differs from the TestRun's %q", x.kind, x.name, x.ns, metas[0].ns)
		}
	}
}

func (p *problems) checkArgs(tp string, s TestRunSpec) {
	field, argv := "spec.args", s.Args
	if len(argv) == 0 {
		field, argv = "spec.arguments", strings.Fields(s.Arguments)
	}
	for _, msg := range CheckK6Args(argv) {
		p.add("%s: %s: %s", tp, field, msg)
	}
}

// CheckK6Args explains each argument that must not be added to the runners' `k6 run`.
func CheckK6Args(argv []string) []string {
	var out []string
	for _, a := range argv {
		flag, _, _ := strings.Cut(a, "=")
		switch {
		case slices.Contains(operatorFlags, flag):
			out = append(out, flag+" is the operator's own flag (it splits, pauses and addresses every runner itself)")
		case slices.Contains(breakingFlags, flag):
			out = append(out, flag+" would skip mqbench's setup or teardown (connecting, the start alignment, closing)")
		}
	}
	return out
}

// checkEnv checks a k6 pod's environment and returns it as a map.
func (p *problems) checkEnv(where string, list []EnvVar) map[string]string {
	env := map[string]string{}
	for _, e := range list {
		if _, dup := env[e.Name]; dup {
			p.add("%s.env: %s is set twice", where, e.Name)
		}
		env[e.Name] = e.Value
	}
	for _, k := range slices.Sorted(maps.Keys(requiredEnv)) {
		v, ok := env[k]
		switch want := requiredEnv[k]; {
		case !ok:
			p.add("%s.env: %s is missing", where, k)
		case want != "" && v != want:
			p.add("%s.env: %s=%q, expected %q", where, k, v, want)
		}
	}
	if v, ok := env[runenv.StartSlack]; ok {
		if d, err := time.ParseDuration(v); err != nil || d < 0 {
			p.add("%s.env: %s=%q is not a duration like 10s", where, runenv.StartSlack, v)
		}
	}
	if v, ok := env[runenv.Scenario]; ok && path.Dir(v) != ScriptDir {
		p.add("%s.env: %s=%q is not in %s, where the operator mounts the ConfigMap", where, runenv.Scenario, v, ScriptDir)
	}
	return env
}

func (p *problems) checkResources(where string, r Resources) {
	for _, k := range []string{"cpu", "memory"} {
		req, lim := r.Requests[k], r.Limits[k]
		switch {
		case req == "" || lim == "":
			p.add("%s: %s needs a request and a limit (requests = limits)", where, k)
		case req != lim:
			p.add("%s: %s request %q differs from its limit %q: a runner must not share its CPU mid-measurement (requests = limits)", where, k, req, lim)
		default:
			if msg := CheckQuantity(req); msg != "" {
				p.add("%s: %s: %s", where, k, msg)
			}
		}
	}
}

// checkResultsMount: the results root is a claim mounted at MQ_RESULTS; returns the claim.
// In a runner, /test is the operator's.
func (p *problems) checkResultsMount(where, root string, vols []Volume, mounts []VolumeMount, operatorMountsScript bool) string {
	byName := map[string]Volume{}
	for _, v := range vols {
		if msg := CheckLabel(v.Name); msg != "" {
			p.add("%s.volumes: %s", where, msg)
		}
		if v.Name == "k6-test-volume" {
			p.add("%s.volumes: k6-test-volume is the operator's (the script's ConfigMap)", where)
		}
		if _, dup := byName[v.Name]; dup {
			p.add("%s.volumes: %s is declared twice", where, v.Name)
		}
		byName[v.Name] = v
	}
	claim := ""
	for _, vm := range mounts {
		v, ok := byName[vm.Name]
		switch {
		case !ok:
			p.add("%s.volumeMounts: %s mounts no declared volume", where, vm.Name)
		case vm.MountPath == ScriptDir && operatorMountsScript:
			p.add("%s.volumeMounts: %s is where the operator mounts the script", where, ScriptDir)
		case vm.MountPath == root && v.PersistentVolumeClaim != nil:
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if root != "" && claim == "" {
		p.add("%s.volumeMounts: no claim is mounted at %s=%s: the shards would stay in each pod", where, runenv.Results, root)
	}
	return claim
}

// checkInitializer: the operator's initializer runs `k6 archive` and `k6 inspect` on the
// script with its own image and environment; with another image than the runners' it
// would judge another program, without the MQ_* variables it could not load the scenario.
func (p *problems) checkInitializer(tp string, s TestRunSpec) {
	in := s.Initializer
	if in == nil {
		return // the operator copies the runner's pod description, which was checked
	}
	if in.Image != s.Runner.Image {
		p.add("%s: spec.initializer.image %q differs from spec.runner.image %q", tp, in.Image, s.Runner.Image)
	}
	env := p.checkEnv(tp+": spec.initializer", in.Env)
	for _, e := range s.Runner.Env {
		if strings.HasPrefix(e.Name, runenv.Prefix) && env[e.Name] != e.Value {
			p.add("%s: spec.initializer.env: %s=%q differs from the runner's %q", tp, e.Name, env[e.Name], e.Value)
		}
	}
	if !slices.Equal(secretRefs(in.EnvFrom), secretRefs(s.Runner.EnvFrom)) {
		p.add("%s: spec.initializer.envFrom differs from spec.runner.envFrom (the scenario may read credentials from it)", tp)
	}
}

func secretRefs(list []EnvFrom) []string {
	var out []string
	for _, e := range list {
		if e.SecretRef != nil {
			out = append(out, e.SecretRef.Name)
		}
	}
	return out
}

// checkPVCs: the runners write their shards concurrently from several nodes, so the claim
// must be ReadWriteMany (shared); one runner's claim may be ReadWriteOnce. A claim that is not
// among the manifests must already exist; its access mode cannot be checked offline.
func (p *problems) checkPVCs(m *Manifests, claim string, shared bool) {
	for _, c := range m.PVCs {
		where := "PersistentVolumeClaim " + c.Metadata.Name
		if !shared && !slices.Contains(c.Spec.AccessModes, "ReadWriteOnce") && !slices.Contains(c.Spec.AccessModes, "ReadWriteMany") {
			p.add("%s: spec.accessModes %v: the runner writes to it, it must be ReadWriteOnce or ReadWriteMany", where, c.Spec.AccessModes)
		}
		if shared && !slices.Contains(c.Spec.AccessModes, "ReadWriteMany") {
			p.add("%s: spec.accessModes %v: the runners of several nodes write to it at once, it must be ReadWriteMany", where, c.Spec.AccessModes)
		}
		if q := c.Spec.Resources.Requests["storage"]; q == "" {
			p.add("%s: spec.resources.requests.storage is missing", where)
		} else if msg := CheckQuantity(q); msg != "" {
			p.add("%s: spec.resources.requests.storage: %s", where, msg)
		}
		if claim != "" && c.Metadata.Name != claim {
			p.add("%s: the runners mount claim %q, not this one", where, claim)
		}
	}
}

// checkMerge: one Job <name>-merge runs `k6 x mqbench merge <results>/<scenario>/<run id>`
// with the same image and claim as the runners, once, suspended until the runners are done.
func (p *problems) checkMerge(m *Manifests, name string, runner OpPod, env map[string]string) {
	want := name + "-merge"
	var job *Job
	for i := range m.Jobs {
		if m.Jobs[i].Metadata.Name == want {
			job = &m.Jobs[i]
		} else {
			p.add("Job %s: unexpected (the generator writes only %s)", m.Jobs[i].Metadata.Name, want)
		}
	}
	if job == nil {
		p.add("Job %s: missing: nothing would judge the run", want)
		return
	}
	where := "Job " + want
	js := job.Spec
	if js.BackoffLimit == nil || *js.BackoffLimit != 0 {
		p.add("%s: spec.backoffLimit must be 0 (a merge that failed says why; a retry would say it again)", where)
	}
	if js.Suspend == nil || !*js.Suspend {
		p.add("%s: spec.suspend must be true: started with the TestRun it would find no shard", where)
	}
	ps := js.Template.Spec
	if ps.RestartPolicy != "Never" {
		p.add("%s: spec.template.spec.restartPolicy %q: expected Never (the exit code is the verdict)", where, ps.RestartPolicy)
	}
	if len(ps.Containers) != 1 {
		p.add("%s: spec.template.spec.containers: expected one container, got %d", where, len(ps.Containers))
		return
	}
	c := ps.Containers[0]
	if msg := CheckLabel(c.Name); msg != "" {
		p.add("%s: containers[0].name: %s", where, msg)
	}
	if c.Image != runner.Image {
		p.add("%s: containers[0].image %q differs from the runners' %q (the merge must be the same build)", where, c.Image, runner.Image)
	}
	scenarioFile := path.Base(env[runenv.Scenario])
	scenario := strings.TrimSuffix(strings.TrimSuffix(scenarioFile, ".yaml"), ".yml")
	dir := path.Join(env[runenv.Results], scenario, env[runenv.RunID])
	payload := payloadOf(m, name+"-script", scenarioFile)
	if cmd := MergeCommand(dir, payload); !slices.Equal(c.Command, cmd) {
		p.add("%s: containers[0].command %q, expected %q (where the runners write)", where, c.Command, cmd)
	}
	if payload != "" && !mountsConfigMap(ps.Volumes, c.VolumeMounts, name+"-script") {
		p.add("%s: the merge reads the payload %s: mount ConfigMap %s-script at %s", where, payload, name, ScriptDir)
	}
	if !slices.Equal(secretRefs(c.EnvFrom), secretRefs(runner.EnvFrom)) {
		p.add("%s: containers[0].envFrom differs from the runners' (the merge parses the scenario, whose broker.url may name a variable)", where)
	}
	p.checkResources(where+": containers[0].resources", c.Resources)
	mergeClaim := p.checkResultsMount(where+": spec.template.spec", env[runenv.Results], ps.Volumes, c.VolumeMounts, false)
	runnerClaim := ""
	for _, v := range runner.Volumes {
		if v.PersistentVolumeClaim != nil {
			runnerClaim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if mergeClaim != "" && mergeClaim != runnerClaim {
		p.add("%s: mounts claim %q, the runners write to %q", where, mergeClaim, runnerClaim)
	}
}

// payloadOf is the key of the script ConfigMap other than the script and the scenario: the
// payload file the generator shipped ("" if none).
func payloadOf(m *Manifests, cmName, scenarioFile string) string {
	for _, cm := range m.ConfigMaps {
		if cm.Metadata.Name != cmName {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(cm.Files())) {
			if k != ScriptKey && k != scenarioFile {
				return k
			}
		}
	}
	return ""
}

func mountsConfigMap(vols []Volume, mounts []VolumeMount, cm string) bool {
	for _, v := range vols {
		if v.ConfigMap == nil || v.ConfigMap.Name != cm {
			continue
		}
		for _, vm := range mounts {
			if vm.Name == v.Name && vm.MountPath == ScriptDir {
				return true
			}
		}
	}
	return false
}
