package k8s

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path"
	"strconv"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/script"
)

// Script is the entry script every runner runs (the one the binary embeds), so manifests
// are generated from any directory.
var Script = script.Source

// Where things are inside the pods. /test is where the operator mounts the ConfigMap
// (read-only, flat: ConfigMap keys cannot hold a '/').
const (
	ScriptKey     = script.Name
	ScriptDir     = "/test"
	ResultsDir    = "/results"
	resultsVolume = "results"
	// The uid the official grafana/k6 image runs as (USER 12345 in k6 v2.1.0's Dockerfile).
	// fsGroup makes the results volume writable by it where the volume type supports
	// ownership management; NFS-backed classes usually ignore fsGroup (docs/distributed.md).
	k6UID = 12345
)

// Config is one distributed run to generate. The caller has validated the scenario.
type Config struct {
	ScenarioFile string // the scenario's file name: its ConfigMap key, /test/<file>
	ScenarioName string // the scenario's name: the results sub-folder
	ScenarioYAML []byte // the file's exact bytes
	PayloadFile  string // the payload file beside the scenario, by name ("" = none)
	Payload      []byte // its bytes
	Runners      int
	Image        string
	StarterImage string // the operator's starter (sh and curl), "" = the operator's default
	ClockRef     string // MQ_CLOCK_REF, the reference clock's host:port ("" = none)
	Namespace    string
	RunID        string // MQ_RUN_ID, also the TestRun's name
	PVC          string // results claim (ReadWriteMany)
	CreatePVC    bool   // write the claim too (kubectl apply leaves an identical one alone)
	StorageClass string // "" = the cluster's default class
	Size         string
	Separate     bool // one runner per node (the operator's pod anti-affinity)
	CPU, Memory  string
	StartSlack   time.Duration
	EnvSecret    string   // a Secret whose keys become every pod's environment ("" = none)
	K6Args       []string // extra `k6 run` arguments (never the operator's own flags)
}

// RunDir is where the runners' shards land and what the merge Job merges.
func (c Config) RunDir() string { return path.Join(ResultsDir, c.ScenarioName, c.RunID) }

// Names of the generated objects.
func (c Config) ScriptName() string { return c.RunID + "-script" }
func (c Config) MergeName() string  { return c.RunID + "-merge" }

// Generate writes the run's manifests as one YAML stream, in the order kubectl must apply
// them: the results claim, the ConfigMap, the TestRun, then the merge Job, suspended until
// the TestRun has finished (Instructions).
func Generate(c Config) ([]byte, error) {
	head := fmt.Sprintf("# mqbench on the k6-operator: scenario %s, %d runners, run %s.\n", c.ScenarioName, c.Runners, c.RunID) +
		"# Written by `k6 x mqbench k8s`; apply in this order, then follow the steps it printed\n" +
		fmt.Sprintf("# (docs/distributed.md). Shards go to %s, on claim %s.\n", c.RunDir(), c.PVC)
	var docs []any
	if c.CreatePVC {
		docs = append(docs, c.pvc())
	}
	return stream(head, append(docs, c.configMap(), c.testRun(), c.mergeJob()))
}

// stream writes head, then docs as one YAML stream in order.
func stream(head string, docs []any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(head)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (c Config) meta(name string) Meta {
	return Meta{Name: name, Namespace: c.Namespace, Labels: c.labels()}
}

func (c Config) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/part-of": "mqbench", "mqbench.io/run": c.RunID}
}

func (c Config) pvc() PVC {
	p := PVC{APIVersion: "v1", Kind: "PersistentVolumeClaim",
		// Shared by every run (each writes <scenario>/<run id>/), so not labelled by run.
		Metadata: Meta{Name: c.PVC, Namespace: c.Namespace, Labels: map[string]string{"app.kubernetes.io/part-of": "mqbench"}},
		Spec: PVCSpec{AccessModes: []string{"ReadWriteMany"},
			Resources: VolumeResourceLimit{Requests: map[string]string{"storage": c.Size}}}}
	if c.StorageClass != "" {
		sc := c.StorageClass
		p.Spec.StorageClassName = &sc
	}
	return p
}

// configMap holds the entry script, the scenario and the files it reads. Text goes in data;
// a file that is not UTF-8 (a binary payload) in binaryData, base64.
func (c Config) configMap() ConfigMap {
	cm := ConfigMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: c.meta(c.ScriptName()),
		Data: map[string]string{ScriptKey: string(Script), c.ScenarioFile: string(c.ScenarioYAML)}}
	switch {
	case c.PayloadFile == "":
	case utf8.Valid(c.Payload):
		cm.Data[c.PayloadFile] = string(c.Payload)
	default:
		cm.BinaryData = map[string]string{c.PayloadFile: base64.StdEncoding.EncodeToString(c.Payload)}
	}
	return cm
}

// env is every k6 pod's environment. The runners read MQ_* from the process environment
// (scenario path, their count, the shared run id, the results root, the start slack, the
// reference clock); the initializer passes each one to `k6 archive` as -e NAME=$(NAME) too.
func (c Config) env() []EnvVar {
	env := []EnvVar{
		{Name: runenv.Scenario, Value: path.Join(ScriptDir, c.ScenarioFile)},
		{Name: runenv.Runners, Value: strconv.Itoa(c.Runners)},
		{Name: runenv.RunID, Value: c.RunID},
		{Name: runenv.Results, Value: ResultsDir},
		{Name: runenv.StartSlack, Value: c.StartSlack.String()},
	}
	if c.ClockRef != "" {
		env = append(env, EnvVar{Name: runenv.ClockRef, Value: c.ClockRef})
	}
	return append(env, k6Env()...)
}

// k6Env: no phoning home and no extension downloads from the pods (bin/k6's defaults, set
// explicitly: an image may be built otherwise).
func k6Env() []EnvVar {
	return []EnvVar{{Name: "K6_NO_USAGE_REPORT", Value: "true"}, {Name: "K6_AUTO_EXTENSION_RESOLUTION", Value: "false"}}
}

func (c Config) envFrom() []EnvFrom {
	if c.EnvSecret == "" {
		return nil
	}
	return []EnvFrom{{SecretRef: &LocalRef{Name: c.EnvSecret}}}
}

// resources: requests equal to limits (Guaranteed QoS), so a runner's CPU is not taken by
// a neighbour in the middle of a latency measurement.
func (c Config) resources() Resources {
	r := map[string]string{"cpu": c.CPU, "memory": c.Memory}
	l := map[string]string{"cpu": c.CPU, "memory": c.Memory}
	return Resources{Requests: r, Limits: l}
}

func (c Config) securityContext() *SecurityContext {
	uid, nonRoot := int64(k6UID), true
	return &SecurityContext{RunAsUser: &uid, RunAsGroup: &uid, RunAsNonRoot: &nonRoot, FSGroup: &uid,
		FSGroupChangePolicy: "OnRootMismatch"}
}

func (c Config) resultsVolume() []Volume {
	return []Volume{{Name: resultsVolume, PersistentVolumeClaim: &ClaimRef{ClaimName: c.PVC}}}
}

func (c Config) resultsMount() []VolumeMount {
	return []VolumeMount{{Name: resultsVolume, MountPath: ResultsDir}}
}

// testRun: the operator adds --execution-segment(-sequence), the script path, --address,
// --paused and the instance_id/testrun_name tags to every runner's argv itself; args only
// carries what the user added. The initializer (k6 archive + k6 inspect in `sh -c`) runs
// the same image, so it needs a shell: the runner image has one. It needs no results
// volume: loading the scenario writes nothing (extensions/itest/k8s_test.go checks).
func (c Config) testRun() TestRun {
	return TestRun{APIVersion: "k6.io/v1alpha1", Kind: "TestRun", Metadata: c.meta(c.RunID),
		Spec: TestRunSpec{
			Parallelism: int32(c.Runners),
			Separate:    c.Separate,
			Script:      K6Script{ConfigMap: &ConfigMapRef{Name: c.ScriptName(), File: ScriptKey}},
			Args:        c.K6Args,
			Runner: OpPod{Image: c.Image, Metadata: &PodMeta{Labels: c.labels()}, Env: c.env(), EnvFrom: c.envFrom(),
				Resources: c.resources(), SecurityContext: c.securityContext(),
				Volumes: c.resultsVolume(), VolumeMounts: c.resultsMount()},
			Initializer: &OpPod{Image: c.Image, Metadata: &PodMeta{Labels: c.labels()}, Env: c.env(), EnvFrom: c.envFrom(),
				Resources: c.resources(), SecurityContext: c.securityContext()},
			Starter: c.starter(),
		}}
}

// starter overrides the operator's starter image, for clusters that cannot pull it.
func (c Config) starter() *StarterPod {
	if c.StarterImage == "" {
		return nil
	}
	return &StarterPod{Image: c.StarterImage}
}

// mergeJob judges the run from the shards on the claim. It is created suspended: applied
// with the rest, it would start before any runner and find no shard. The merge parses the
// scenario again, so it gets the Secret (a ${NAME} in broker.url must expand) and, for a
// scenario with a payload file, that file beside the shards, where the merge looks for it.
func (c Config) mergeJob() Job {
	zero, suspend := int32(0), true
	payload := c.PayloadFile
	vols, mounts := c.resultsVolume(), c.resultsMount()
	if payload != "" {
		vols = append(vols, Volume{Name: scriptVolume, ConfigMap: &LocalRef{Name: c.ScriptName()}})
		mounts = append(mounts, VolumeMount{Name: scriptVolume, MountPath: ScriptDir, ReadOnly: true})
	}
	return Job{APIVersion: "batch/v1", Kind: "Job", Metadata: c.meta(c.MergeName()),
		Spec: JobSpec{BackoffLimit: &zero, Suspend: &suspend, Template: PodTemplate{
			Metadata: PodMeta{Labels: c.labels()},
			Spec: PodSpec{RestartPolicy: "Never", SecurityContext: c.securityContext(),
				Containers: []Container{{Name: "merge", Image: c.Image,
					Command:   MergeCommand(c.RunDir(), payload),
					Env:       k6Env(), // the merge reads no MQ_* variable: the shards say it all
					EnvFrom:   c.envFrom(),
					Resources: c.resources(), VolumeMounts: mounts}},
				Volumes: vols}}}}
}

// scriptVolume is the merge Job's mount of the ConfigMap (the runners' is the operator's).
const scriptVolume = "script"

// MergeCommand is the merge Job's command: `k6 x mqbench merge DIR`, after copying the
// payload file (if any) from the ConfigMap into DIR.
func MergeCommand(dir, payload string) []string {
	merge := []string{"k6", "x", "mqbench", "merge", dir}
	if payload == "" {
		return merge
	}
	// mkdir: with no shard at all the merge, not cp, says so (exit 114).
	return []string{"sh", "-c", `mkdir -p "$2" && cp "$1" "$2"/ && exec k6 x mqbench merge "$2"`, "sh", path.Join(ScriptDir, payload), dir}
}
