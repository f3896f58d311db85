package itest

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // the drivers validate their options
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// The CI templates for a service's own repository (examples/ci/service/) run one script,
// perf/mqbench-ci.sh, with their variables. Here that script runs as the templates call it,
// in a folder standing for the service's repository (the script and its scenarios, nothing of
// mqbench's), against the Kafka and RabbitMQ make test started: a passing run exits 0 with
// junit.xml where the CI reads it, a breached SLA exits 99 and says so.

var serviceDir = filepath.Join("examples", "ci", "service")

// serviceJobs reads each template's jobs that run the load test (sh perf/mqbench-ci.sh):
// their variables, as the script is given them. gateJobs (below) reads the others.
func serviceJobs(t *testing.T) map[string]map[string]string {
	t.Helper()
	jobs := map[string]map[string]string{}
	for name, j := range templateJobs(t) {
		if j.script == "sh perf/mqbench-ci.sh" {
			jobs[name] = j.env
		}
	}
	if len(jobs) != 4 {
		t.Errorf("jobs %v: want a Kafka and a RabbitMQ job in each template", jobs)
	}
	return jobs
}

type templateJob struct {
	env    map[string]string
	script string // the one mqbench command the job runs
}

// templateJobs reads every job of both templates: each runs one of the two scripts, after at
// most the gate's step that writes the target branch's scenario (git show … >perf/baseline/…).
func templateJobs(t *testing.T) map[string]templateJob {
	t.Helper()
	root := repoRoot(t)
	jobs := map[string]templateJob{}
	scripts := map[string]bool{"sh perf/mqbench-ci.sh": true, "sh perf/mqbench-gate.sh": true}
	var gh struct {
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct{ Run string }
		} `yaml:"jobs"`
	}
	readYAMLFile(t, filepath.Join(root, serviceDir, "github-actions.yml"), &gh)
	for name, j := range gh.Jobs {
		var script string
		for _, s := range j.Steps {
			run := strings.TrimSpace(s.Run)
			switch {
			case run == "":
			case scripts[run] && script == "":
				script = run
			case strings.HasPrefix(run, "mkdir -p perf/baseline && git show ") && j.Env["MQBENCH_GATE_BASELINE"] != "":
			default:
				t.Errorf("github-actions.yml job %s runs %q: a job runs one of the scripts", name, s.Run)
			}
		}
		if script == "" {
			t.Errorf("github-actions.yml job %s runs no script", name)
		}
		jobs["github/"+name] = templateJob{env: j.Env, script: script}
	}
	type glJob struct {
		Extends   string            `yaml:"extends"`
		Image     any               `yaml:"image"`
		Script    []string          `yaml:"script"`
		Variables map[string]string `yaml:"variables"`
	}
	var top map[string]yaml.Node
	readYAMLFile(t, filepath.Join(root, serviceDir, "gitlab-ci.yml"), &top)
	gl := map[string]glJob{}
	for name, n := range top {
		var j glJob
		if n.Kind == yaml.MappingNode && n.Decode(&j) == nil {
			gl[name] = j
		}
	}
	// resolve follows extends as GitLab does: the job's keys over its parent's, variables merged.
	var resolve func(name string, depth int) glJob
	resolve = func(name string, depth int) glJob {
		j := gl[name]
		if j.Extends == "" || depth > 5 {
			return j
		}
		p := resolve(j.Extends, depth+1)
		vars := maps.Clone(p.Variables)
		if vars == nil {
			vars = map[string]string{}
		}
		maps.Copy(vars, j.Variables)
		j.Variables = vars
		if j.Script == nil {
			j.Script = p.Script
		}
		if j.Image == nil {
			j.Image = p.Image
		}
		return j
	}
	for name := range gl {
		if strings.HasPrefix(name, ".") || name == "stages" {
			continue
		}
		j := resolve(name, 0)
		if len(j.Script) == 1 && scripts[j.Script[0]] {
			jobs["gitlab/"+name] = templateJob{env: j.Variables, script: j.Script[0]}
		}
	}
	if base := gl[".mqbench"]; len(base.Script) != 1 || base.Script[0] != "sh perf/mqbench-ci.sh" {
		t.Errorf("gitlab-ci.yml .mqbench script %q: want the script alone", base.Script)
	}
	return jobs
}

func readYAMLFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// serviceRepo is a folder holding perf/ (the script and the scenarios, shortened) and nothing
// of mqbench's; breach rewrites every latency limit so the run must fail its SLA.
func serviceRepo(t *testing.T, breach bool) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(repoRoot(t), serviceDir, "perf")
	if err := os.MkdirAll(filepath.Join(dir, "perf"), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	short := strings.NewReplacer("warmup: 5s", "warmup: 1s", "duration: 30s", "duration: 3s")
	limit := regexp.MustCompile(`"p\(99\) < \d+ms"`)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".yaml") {
			b = []byte(short.Replace(string(b)))
			if breach {
				b = limit.ReplaceAll(b, []byte(`"p(99) < 1ns"`))
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "perf", e.Name()), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Every way the templates run mqbench: a k6 binary (MQBENCH_K6); the runner image through a
// container runtime (MQBENCH_IMAGE; here scripts/image/docker.sh, the image make test built
// run with runc), which sees the scenario's variables only because the script passes them; and
// the GitLab way, the job itself running in the runner image (its shell, MQBENCH_K6: k6).
func TestCIServiceTemplates(t *testing.T) { ciServiceTemplates(t, true) }

// TestCIServiceTemplatesFailing: the cases whose run must fail (a breach of a 1 ns limit, an
// unset variable, an image the runtime cannot have) judge no latency, so they run in the
// waiting tier rather than on the idle machine the passing cases need.
func TestCIServiceTemplatesFailing(t *testing.T) {
	waitTurn(t, 45*time.Second)
	ciServiceTemplates(t, false)
}

// ciServiceTemplates runs the cases that must pass (passing) or those that must fail.
func ciServiceTemplates(t *testing.T, passing bool) {
	bin := k6Binary(t)
	root := repoRoot(t)
	jobs := serviceJobs(t)
	local := map[string]string{"localhost:9092": "127.0.0.1:9092", "kafka:9092": "127.0.0.1:9092",
		"localhost:5672": "127.0.0.1:5672", "rabbitmq:5672": "127.0.0.1:5672"}
	image := []string{"MQBENCH_IMAGE=mqbench-k6:local", "MQBENCH_RUNTIME=" + filepath.Join(root, "scripts", "image", "docker.sh")}
	if _, err := os.Stat(filepath.Join(root, ".cache", "image", "layout")); err != nil {
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatalf("no runner image (scripts/image/build.sh): %v", err)
		}
		image = nil
	}
	type outcome struct {
		code    int
		verdict string
	}
	pass := outcome{0, "passed: every threshold held"}
	breach := outcome{99, "FAILED: an SLA threshold was breached"}
	unset := outcome{111, "the scenario is invalid"}
	nopull := outcome{125, "the container runtime could not run mqbench-k6:nosuch"}
	for _, tc := range []struct {
		job, path string
		want      outcome
	}{
		{"github/kafka", "binary", pass}, {"github/kafka", "binary", breach},
		{"github/rabbitmq", "binary", pass}, {"github/rabbitmq", "binary", breach},
		{"gitlab/orders-kafka", "binary", pass}, {"gitlab/orders-kafka", "binary", breach},
		{"github/kafka", "image", pass}, {"github/rabbitmq", "image", breach},
		{"github/kafka", "image", unset}, {"github/rabbitmq", "binary", unset}, {"github/kafka", "image", nopull},
		{"gitlab/orders-kafka", "job-image", pass}, {"gitlab/orders-rabbitmq", "job-image", breach},
	} {
		if (tc.want == pass) != passing {
			continue
		}
		t.Run(tc.job+"/"+tc.path+"/"+strconv.Itoa(tc.want.code), func(t *testing.T) {
			if tc.path != "binary" && image == nil {
				t.Skip("no runner image: scripts/image/build.sh")
			}
			dir := serviceRepo(t, tc.want == breach)
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			switch tc.path {
			case "image":
				env = append(env, image...)
				if tc.want == nopull { // an image the runtime cannot have: its 125, named
					env = append(env, "MQBENCH_IMAGE=mqbench-k6:nosuch")
				}
			case "binary":
				env = append(env, "MQBENCH_K6="+bin)
			}
			unsetVar := ""
			for k, v := range jobs[tc.job] {
				for from, to := range local { // the CI's service container is the local broker here
					v = strings.ReplaceAll(v, from, to)
				}
				if tc.want == unset && strings.HasSuffix(k, "_URL") {
					unsetVar = k // the job forgot to set the broker's address
					continue
				}
				if tc.path == "job-image" || k != "MQBENCH_K6" && k != "MQBENCH_IMAGE" {
					env = append(env, k+"="+v)
				}
			}
			if tc.want == unset && unsetVar == "" {
				t.Fatalf("job %s sets no *_URL variable to leave unset", tc.job)
			}
			cmd := exec.Command("sh", "perf/mqbench-ci.sh")
			cmd.Dir, cmd.Env = dir, env
			if tc.path == "job-image" { // the job's variables are the container's environment
				cmd = exec.Command(filepath.Join(root, "scripts", "image", "run.sh"), dir, "--", "perf/mqbench-ci.sh")
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MQBENCH_IMAGE_ENTRYPOINT=/bin/sh",
					"MQBENCH_IMAGE_ENV=" + strings.Join(env[2:], "\n")}
			}
			r := execRun(t, cmd)
			if r.code != tc.want.code || !strings.Contains(r.stderr, tc.want.verdict) {
				t.Fatalf("exit %d, want %d saying %q\n%s", r.code, tc.want.code, tc.want.verdict, r)
			}
			junit, err := os.ReadFile(filepath.Join(dir, "mqbench-junit.xml"))
			if err != nil {
				t.Fatalf("no junit.xml where the CI reads it: %v", err)
			}
			if failures := strings.Contains(string(junit), "<failure"); failures != (tc.want != pass) {
				t.Errorf("junit.xml has failures: %v, want %v\n%s", failures, tc.want != pass, junit)
			}
			if tc.want == unset && !strings.Contains(string(junit), unsetVar+" is not set") {
				t.Errorf("junit.xml does not name the unset %s:\n%s", unsetVar, junit)
			}
		})
	}
}

// The service templates' scenarios are shipped scenarios: they validate, with the broker
// address the pipeline gives them.
func TestCIServiceScenariosValidate(t *testing.T) {
	t.Setenv("KAFKA_URL", "kafka://localhost:9092")
	t.Setenv("RABBITMQ_URL", "amqp://guest:guest@localhost:5672/")
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), serviceDir, "perf", "*.yaml"))
	if len(files) != 2 {
		t.Fatalf("scenarios %v: want orders-kafka and orders-rabbitmq", files)
	}
	for _, f := range files {
		if _, err := scenario.Load(f); err != nil {
			t.Error(err)
		}
	}
}
