package cmd

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/k8s"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// k8sFlags are the options of `k6 x mqbench k8s`.
type k8sFlags struct {
	runners                         int
	image, namespace, runID, pvc    string
	starterImage, clockRef          string
	storageClass, size, cpu, memory string
	envSecret, out                  string
	createPVC, separate             bool
	startSlack                      time.Duration
	k6Args                          []string
}

// K8s is `k6 x mqbench k8s`: the manifests of a distributed run on the k6-operator.
func K8s(gs *state.GlobalState) *cobra.Command {
	var f k8sFlags
	cmd := &cobra.Command{
		Use:   "k8s SCENARIO --runners N [--image IMAGE] [flags]",
		Short: "Write the Kubernetes manifests of a run: one runner as a plain Job, or a distributed run on the k6-operator (exit 111 if it cannot be one)",
		Long: `With --runners 1, the simplest way to run beside a broker in a cluster: a plain Job (no
k6-operator) running the image's k6 x mqbench run (default image ` + k8s.DefaultImage + `, built by
make image) on the scenario from a ConfigMap, results on a claim (ReadWriteOnce is enough), and
a bash script on stderr that applies them, waits for the Job and exits with the run's code:

  k6 x mqbench k8s scenarios/x.yaml --runners 1 --image registry/mqbench-k6:v1 -o run.yaml 2> run.sh

With N >= 2: the manifests of one distributed run of SCENARIO on the k6-operator (v1.6.0+), as one
YAML stream in apply order: a ReadWriteMany claim for the results (unless --create-pvc=false),
a ConfigMap <run>-script with mqbench.js and the scenario (and its payload file), the TestRun
<run> (N runners of --image, the same image as initializer), and a Job <run>-merge, suspended,
that runs k6 x mqbench merge on the runners' shards. A bash script that applies them, waits
for the TestRun, starts the merge and exits with its code goes to stderr:

  k6 x mqbench k8s scenarios/x.yaml --runners 3 --image registry/mqbench-k6:v1 -o run.yaml 2> run.sh

The image must hold a shell (the operator's initializer runs sh): the runner image has one
(docker/Dockerfile, make image).
Every manifest is checked strictly before it is written. Exit 111 when the scenario is
invalid or cannot run there (faults; with several runners also url: embedded, abort_on_fail, …).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitcode.New(exitcode.InvalidScenario, "mqbench k8s: name one scenario file, see --help")
			}
			yml, script, err := generateK8s(args[0], f, time.Now())
			if err != nil {
				return exitcode.New(exitcode.InvalidScenario, "mqbench k8s: %v", err)
			}
			if f.out == "" {
				_, err = gs.Stdout.Write(yml)
			} else {
				err = os.WriteFile(f.out, yml, 0o644)
			}
			if err != nil {
				return exitcode.New(exitcode.InvalidScenario, "mqbench k8s: %v", err)
			}
			fmt.Fprint(gs.Stderr, script)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.runners, "runners", 0, "number of runner pods: 1 (a plain Job, no operator) or at least 2 (the TestRun's parallelism)")
	fl.StringVar(&f.image, "image", "", "runner image, pinned by tag or digest: default "+k8s.DefaultImage+" (make image) with one runner; required with several (the runner image pushed to a registry the nodes pull from)")
	fl.StringVar(&f.starterImage, "starter-image", "", "image of the operator's starter, which resumes the runners with sh and curl, pinned by tag or digest (default: the operator's own)")
	fl.StringVar(&f.clockRef, "clock-ref", "", "host:port of a reference clock (k6 x mqbench clock --listen) every runner can reach: MQ_CLOCK_REF, which a shared-destination run needs for a latency verdict")
	fl.StringVar(&f.namespace, "namespace", "default", "namespace of every object")
	fl.StringVar(&f.runID, "run-id", "", "run id and TestRun name (default <scenario>-<UTC timestamp>)")
	fl.StringVar(&f.pvc, "pvc", "mqbench-results", "ReadWriteMany claim the runners write their shards to")
	fl.BoolVar(&f.createPVC, "create-pvc", true, "write the claim too (false: it exists already)")
	fl.StringVar(&f.storageClass, "storage-class", "", "storage class of the claim, one that offers ReadWriteMany (default: the cluster's default)")
	fl.StringVar(&f.size, "size", "1Gi", "size of the claim")
	fl.BoolVar(&f.separate, "separate", true, "one runner per node (the operator's pod anti-affinity; needs N schedulable nodes)")
	fl.StringVar(&f.cpu, "cpu", "1", "CPU of each pod, requested and limited")
	fl.StringVar(&f.memory, "memory", "1Gi", "memory of each pod, requested and limited")
	fl.DurationVar(&f.startSlack, "start-slack", 10*time.Second, runenv.StartSlack+": each runner starts its first cell this long after it is resumed")
	fl.StringVar(&f.envSecret, "env-secret", "", "Secret whose keys become the pods' environment (the broker credentials the scenario names)")
	fl.StringArrayVar(&f.k6Args, "k6-arg", nil, "extra argument for the runners' k6 run, repeatable (never the operator's own flags)")
	fl.StringVarP(&f.out, "output", "o", "", "write the manifests to this file instead of stdout")
	return cmd
}

// generateK8s returns the manifests and the bash script for stderr, or why there are none.
func generateK8s(path string, f k8sFlags, now time.Time) ([]byte, string, error) {
	single := f.runners == 1
	switch {
	case f.runners < 1:
		return nil, "", fmt.Errorf("--runners %d: one runner (a plain Job) or at least 2 (a TestRun on the k6-operator)", f.runners)
	case single && f.image == "":
		f.image = k8s.DefaultImage
	case f.image == "":
		return nil, "", errors.New("--image is required with several runners: the runner image (docker/Dockerfile, with the shell the operator's initializer needs) pushed to a registry the nodes pull from, pinned by tag or digest")
	}
	if err := checkK8sFlags(f); err != nil {
		return nil, "", err
	}
	sc, err := scenario.Load(path)
	var se *scenario.Errors
	switch {
	case errors.As(err, &se) && len(se.Problems) > 1:
		return nil, "", fmt.Errorf("invalid scenario %s (%d problems; k6 x mqbench validate %s lists them all): %s", path, len(se.Problems), path, se.Problems[0])
	case err != nil:
		return nil, "", errors.New(oneLine(err))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	if fields := k8s.LiteralSecrets(raw); len(fields) > 0 {
		// Refused, not stripped: a url without its password would fail to log in later.
		return nil, "", fmt.Errorf("%s: %s holds a literal password, which the ConfigMap would store in the clear: write it as ${VAR} (like nats://user:${NATS_PASSWORD}@host) and pass the variable in a Secret with --env-secret NAME", path, strings.Join(fields, ", "))
	}
	c := k8s.Config{ScenarioFile: filepath.Base(path), ScenarioName: sc.Name, ScenarioYAML: raw,
		Runners: f.runners, Image: f.image, StarterImage: f.starterImage, ClockRef: f.clockRef, Namespace: f.namespace, RunID: f.runID, PVC: f.pvc,
		CreatePVC: f.createPVC, StorageClass: f.storageClass, Size: f.size, Separate: f.separate,
		CPU: f.cpu, Memory: f.memory, StartSlack: f.startSlack, EnvSecret: f.envSecret, K6Args: f.k6Args}
	if c.RunID == "" {
		c.RunID = k8s.DefaultRunID(sc.Name, now, f.runners)
	}
	if msg := k8s.CheckRunID(c.RunID, f.runners); msg != "" {
		return nil, "", errors.New("--run-id: " + msg)
	}
	if single && len(sc.Faults.Schedule) > 0 {
		return nil, "", fmt.Errorf("%s injects faults: its kill and start commands run where mqbench runs, not in a pod", path)
	}
	if problems := runnerRefusals(sc, c); !single && len(problems) > 0 {
		return nil, "", fmt.Errorf("%s cannot run distributed: %s", path, strings.Join(problems, "; "))
	}
	warnings, err := scenarioFiles(sc, raw, filepath.Dir(path), &c)
	if err != nil {
		return nil, "", err
	}
	if single {
		return generateSingle(c, f.out, plan.Length(sc), warnings)
	}
	yml, err := k8s.Generate(c)
	if err != nil {
		return nil, "", err
	}
	if err := checkK8s(yml); err != nil {
		return nil, "", fmt.Errorf("the generated manifests fail their own check (a bug): %v", oneLine(err))
	}
	if sc.Distributed.Shared && c.ClockRef == "" {
		// Each runner is its own host: without a reference, cross-runner latencies are
		// unbounded and the merge gives latency thresholds no verdict.
		warnings = append(warnings, "a shared destination without --clock-ref: the merge gives latency thresholds no verdict (docs/distributed.md, Clock offsets)")
	}
	file := f.out
	if file == "" {
		file = c.RunID + ".yaml"
		warnings = append(warnings, "the manifests went to stdout: save them as "+file+" (or use -o)")
	}
	return yml, k8s.Instructions(c, file, plan.Length(sc), warnings), nil
}

// generateSingle is --runners 1: a plain Job running the image's `k6 x mqbench run`.
func generateSingle(c k8s.Config, out string, length time.Duration, warnings []string) ([]byte, string, error) {
	yml, err := k8s.GenerateSingle(c)
	if err != nil {
		return nil, "", err
	}
	m, err := k8s.Decode(yml)
	if err != nil {
		return nil, "", fmt.Errorf("the generated manifests fail their own check (a bug): %v", oneLine(err))
	}
	if problems := k8s.CheckSingle(m); len(problems) > 0 {
		return nil, "", fmt.Errorf("the generated manifests fail their own check (a bug): %s", strings.Join(problems, "; "))
	}
	if out == "" {
		out = c.RunID + ".yaml"
		warnings = append(warnings, "the manifests went to stdout: save them as "+out+" (or use -o)")
	}
	return yml, k8s.SingleInstructions(c, out, length, warnings), nil
}

func checkK8sFlags(f k8sFlags) error {
	for _, q := range [][2]string{{"--cpu", f.cpu}, {"--memory", f.memory}, {"--size", f.size}} {
		if msg := k8s.CheckQuantity(q[1]); msg != "" {
			return errors.New(q[0] + ": " + msg)
		}
	}
	if msg := k8s.CheckImage(f.image); msg != "" {
		return errors.New("--image: " + msg)
	}
	if msg := k8s.CheckImage(f.starterImage); f.starterImage != "" && msg != "" {
		return errors.New("--starter-image: " + msg)
	}
	for _, n := range [][2]string{{"--namespace", f.namespace}, {"--pvc", f.pvc}, {"--env-secret", f.envSecret}} {
		if n[1] != "" || n[0] != "--env-secret" {
			if msg := k8s.CheckLabel(n[1]); msg != "" {
				return errors.New(n[0] + ": " + msg)
			}
		}
	}
	if msgs := k8s.CheckK6Args(f.k6Args); len(msgs) > 0 {
		return errors.New("--k6-arg: " + strings.Join(msgs, "; "))
	}
	if f.clockRef != "" {
		if _, port, err := net.SplitHostPort(f.clockRef); err != nil || port == "" {
			return fmt.Errorf("--clock-ref %q: give host:port of the reference clock (k6 x mqbench clock --listen)", f.clockRef)
		}
		if err := driver.CheckHostPort(f.clockRef, "--clock-ref"); err != nil {
			return err
		}
	}
	if f.startSlack < 0 {
		return errors.New("--start-slack must not be negative")
	}
	return nil
}

// runnerRefusals are the problems each runner would stop on (readDistributed), judged with
// the environment the pods get: the generator refuses exactly what the runners would refuse.
func runnerRefusals(sc *scenario.Scenario, c k8s.Config) []string {
	vars := map[string]string{runenv.Runners: strconv.Itoa(c.Runners), runenv.RunID: c.RunID, runenv.StartSlack: c.StartSlack.String()}
	_, problems := plan.ReadDistributed(sc, func(k string) string { return vars[k] })
	return problems
}

// scenarioFiles puts what the scenario reads into the ConfigMap or asks for a Secret, and
// returns warnings about what it cannot ship (a CA file: mount it yourself).
func scenarioFiles(sc *scenario.Scenario, raw []byte, dir string, c *k8s.Config) ([]string, error) {
	refs := k8s.ScenarioRefs(raw)
	if refs.Payload != "" {
		if filepath.Base(refs.Payload) != refs.Payload {
			return nil, fmt.Errorf("workload.payload.file %q: on Kubernetes the payload must sit beside the scenario (the ConfigMap mounted at %s is flat): copy it there and write file: %s", refs.Payload, k8s.ScriptDir, filepath.Base(refs.Payload))
		}
		b, err := k8s.ConfigMapFile("workload.payload.file", sc.Workload.Payload.File, dir)
		if err != nil {
			return nil, err
		}
		c.PayloadFile, c.Payload = refs.Payload, b
	}
	size := len(k8s.ScriptKey) + len(k8s.Script) + len(c.ScenarioFile) + len(raw) + len(c.PayloadFile) + len(c.Payload)
	if size > k8s.MaxConfigMapBytes {
		return nil, fmt.Errorf("the script, the scenario and its payload file come to %d bytes, over the 1 MiB a ConfigMap may hold: use a smaller payload file", size)
	}
	if len(refs.Env) > 0 && c.EnvSecret == "" {
		return nil, fmt.Errorf("the scenario reads %s from the environment (broker credentials): create a Secret with these keys and pass --env-secret NAME", strings.Join(refs.Env, ", "))
	}
	var warnings []string
	if h := loopbackHost(sc.Broker.URL); h != "" {
		warnings = append(warnings, fmt.Sprintf("broker.url names %s: inside a pod that is the pod itself; give the broker's address as the runners reach it (a Service name)", h))
	}
	for _, f := range refs.Files {
		warnings = append(warnings, fmt.Sprintf("the scenario reads %s; it is not shipped: mount it into the runner pods at that path yourself", f))
	}
	return warnings, nil
}

// loopbackHost returns the first loopback host of a broker URL (a list of URLs for
// some drivers), or "".
func loopbackHost(raw string) string {
	for _, part := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		h := u.Hostname()
		if h == "" && !strings.Contains(part, "://") {
			h, _, _ = strings.Cut(strings.TrimSpace(part), ":")
		}
		if ip := net.ParseIP(h); h == "localhost" || ip != nil && ip.IsLoopback() {
			return h
		}
	}
	return ""
}

// checkK8s is the offline check of a manifest stream: strict decoding, k8s.Check, and each
// cell's VU budget divisible by the runner count (k6 splits an arrival rate by maxVUs, so
// only then does every runner take rate/N), on the scenario as shipped in the ConfigMap.
func checkK8s(stream []byte) error {
	m, err := k8s.Decode(stream)
	if err != nil {
		return err
	}
	problems := k8s.Check(m)
	if len(problems) == 0 {
		problems = vuBudgetProblems(m)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// vuBudgetProblems loads the scenario from the ConfigMap's files, as a runner would under
// /test, and checks the options every runner builds from it.
func vuBudgetProblems(m *k8s.Manifests) []string {
	s := m.TestRuns[0].Spec
	n := int(s.Parallelism)
	var cm k8s.ConfigMap
	for _, c := range m.ConfigMaps {
		if c.Metadata.Name == s.Script.ConfigMap.Name {
			cm = c
		}
	}
	dir, err := os.MkdirTemp("", "mqbench-k8s-")
	if err != nil {
		return []string{err.Error()}
	}
	defer os.RemoveAll(dir)
	for name, b := range cm.Files() {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return []string{err.Error()}
		}
	}
	var file string
	for _, e := range s.Runner.Env {
		if e.Name == runenv.Scenario {
			file = filepath.Base(e.Value)
		}
	}
	sc, err := scenario.Load(filepath.Join(dir, file))
	if err != nil {
		return []string{"ConfigMap " + cm.Metadata.Name + ": the scenario does not load from it: " + oneLine(err)}
	}
	var out []string
	scenarios := plan.Build(sc, "check", n).Options.Scenarios
	for _, c := range sc.Cells {
		pub := scenarios[catalog.PublishScenario(c.ID)]
		for _, b := range []struct {
			key string
			v   int
		}{{"preAllocatedVUs", pub.PreAllocatedVUs}, {"maxVUs", pub.MaxVUs}} {
			if b.v%n != 0 || b.v < n {
				out = append(out, fmt.Sprintf("cell %s: %s %v is not a positive multiple of %d runners: they would not each take rate/%d", c.ID, b.key, b.v, n, n))
			}
		}
	}
	return out
}

// oneLine joins a multi-line error (a scenario's problem list) into one line.
func oneLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for i := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(lines[i]), "- ")
	}
	lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" })
	if len(lines) > 1 && strings.HasSuffix(lines[0], ":") {
		return lines[0] + " " + strings.Join(lines[1:], "; ")
	}
	return strings.Join(lines, "; ")
}
