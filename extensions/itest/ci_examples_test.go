package itest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The CI examples in examples/ci are exercised, not just shown: their commands run here, in
// order, in a copy of the repository (as a fresh checkout), against the NATS server the
// examples start, with the short report-ci.yaml in place of their 3-minute scenario.

type ghWorkflow struct {
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []ghStep          `yaml:"steps"`
	} `yaml:"jobs"`
}

type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
}

type glFile struct {
	Job struct {
		Image        string            `yaml:"image"`
		Variables    map[string]string `yaml:"variables"`
		BeforeScript []string          `yaml:"before_script"`
		Script       []string          `yaml:"script"`
		AfterScript  []string          `yaml:"after_script"`
		Artifacts    struct {
			When    string   `yaml:"when"`
			Paths   []string `yaml:"paths"`
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	} `yaml:"mqbench"`
}

const ciScenario = "extensions/itest/testdata/report-ci.yaml"

func readCIFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Versions are pinned: actions by full version tag, the image by full Go version.
func TestCIExamplesArePinned(t *testing.T) {
	root := repoRoot(t)
	var gh ghWorkflow
	readCIFile(t, filepath.Join(root, "examples/ci/github-actions.yml"), &gh)
	var gl glFile
	readCIFile(t, filepath.Join(root, "examples/ci/gitlab-ci.yml"), &gl)
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+@v\d+\.\d+\.\d+$`)
	uses := 0
	for _, j := range gh.Jobs {
		for _, s := range j.Steps {
			if s.Uses != "" {
				uses++
				if !pinned.MatchString(s.Uses) {
					t.Errorf("github-actions.yml: %q is not pinned to a full version", s.Uses)
				}
			}
		}
	}
	if uses < 3 {
		t.Errorf("github-actions.yml: %d actions, want checkout, setup-go and upload-artifact", uses)
	}
	gomod, _ := os.ReadFile(filepath.Join(root, "extensions/go.mod"))
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	img := regexp.MustCompile(`^golang:(\d+\.\d+)\.\d+-\w+$`).FindStringSubmatch(gl.Job.Image)
	if img == nil || goVer == nil || img[1] != string(goVer[1]) {
		t.Errorf("gitlab-ci.yml image %q: want golang:<the go.mod Go version, patch included>-<distro>", gl.Job.Image)
	}
	for _, f := range []string{"github-actions.yml", "gitlab-ci.yml"} {
		b, _ := os.ReadFile(filepath.Join(root, "examples/ci", f))
		for _, bad := range []string{"@latest", ":latest", "@main", "@master", "curl ", "wget ", "go install"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s contains %q: only pinned versions and repository commands", f, bad)
			}
		}
	}
}

func TestCIExamplesRun(t *testing.T) {
	k6Binary(t) // an integration run: `make test` sets it up
	root := repoRoot(t)
	natsWasRunning := strings.Contains(shell(t, root, os.Environ(), "scripts/brokers/status.sh nats").out, "running")
	if !natsWasRunning && os.Getenv("MQBENCH_REQUIRE_BROKERS") != "1" {
		t.Skip("NATS not running: `make test` starts it (the examples would install and start their own)")
	}
	var gh ghWorkflow
	readCIFile(t, filepath.Join(root, "examples/ci/github-actions.yml"), &gh)
	var gl glFile
	readCIFile(t, filepath.Join(root, "examples/ci/gitlab-ci.yml"), &gl)
	ws := workspace(t, root)
	// The examples' broker is the repository's own (same state dir): start.sh finds it running.
	base := cleanEnv("MQBENCH_STATE=" + filepath.Join(root, ".cache", "brokers"))

	t.Run("github-actions", func(t *testing.T) {
		job := gh.Jobs["latency"]
		summary := filepath.Join(t.TempDir(), "step-summary.md")
		env := append(base, "GITHUB_STEP_SUMMARY="+summary)
		for k, v := range job.Env {
			env = append(env, k+"="+v)
		}
		env = append(env, "MQBENCH_SCENARIO="+ciScenario)
		failed := false
		for _, s := range job.Steps {
			if failed && !strings.Contains(s.If, "always()") {
				continue
			}
			switch {
			case strings.HasPrefix(s.Uses, "actions/checkout@"): // the workspace is the checkout
			case strings.HasPrefix(s.Uses, "actions/setup-go@"):
				if _, err := os.Stat(filepath.Join(ws, s.With["go-version-file"])); err != nil {
					t.Errorf("setup-go: go-version-file: %v", err)
				}
			case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
				checkResults(t, filepath.Join(ws, s.With["path"]), "report-ci", true)
			case s.Run != "":
				if strings.Contains(s.Run, "MQBENCH_BASELINE") {
					makeBaseline(t, ws, job.Env["MQBENCH_BASELINE"], "report-ci")
				}
				r := shell(t, ws, env, s.Run)
				if r.code != 0 {
					failed = true
					t.Errorf("step %q exited %d:\n%s", s.Name, r.code, r.out)
				}
				if strings.Contains(s.Run, "make run") && !strings.Contains(r.out, "result: PASS") {
					t.Errorf("step %q: no PASS:\n%s", s.Name, r.out)
				}
				if strings.Contains(s.Run, "make compare") && !strings.Contains(r.out, "result: PASS, no regression") {
					t.Errorf("step %q: the gate did not run:\n%s", s.Name, r.out)
				}
			default:
				t.Errorf("step %q: neither run nor a known action", s.Name)
			}
		}
		if b, _ := os.ReadFile(summary); !bytes.Contains(b, []byte("mqbench report-ci")) {
			t.Errorf("job summary lacks the console summary:\n%s", b)
		}
	})

	t.Run("gitlab-ci", func(t *testing.T) {
		job := gl.Job
		os.RemoveAll(filepath.Join(ws, "results", "report-ci"))
		env := append([]string{}, base...)
		for k, v := range job.Variables {
			env = append(env, k+"="+v)
		}
		// GitLab runs before_script and script in one shell that stops at the first failure.
		// The baseline is the GitHub leg's run: another run on a shared machine, so the gate
		// checks the receive rate alone at the widest tolerance, 100 % (which only a run that
		// received nothing crosses): a 2 s run's latency can double from noise alone (the
		// GitHub leg gates a run against itself at the example's tolerance).
		pass := shell(t, ws, append(env, "MQBENCH_SCENARIO="+ciScenario, "MQBENCH_TOLERANCE=100%", "METRICS=receiver_rate"), strings.Join(append(job.BeforeScript, job.Script...), "\n"))
		if pass.code != 0 || !strings.Contains(pass.out, "result: PASS, no regression") {
			t.Errorf("passing job: exit %d, want 0 with the gate run:\n%s", pass.code, pass.out)
		}
		checkResults(t, filepath.Join(ws, job.Artifacts.Paths[0]), "report-ci", true)
		// A threshold that fails: the job fails with the run's exit 99 (called directly, not
		// through make, which would turn it into 2) and the artifacts are still there.
		fail := shell(t, ws, append(env, "MQBENCH_SCENARIO=extensions/itest/testdata/threshold-fail.yaml"), strings.Join(job.Script, "\n"))
		if fail.code != 99 || !strings.Contains(fail.out, "result: FAIL") {
			t.Errorf("failing threshold: job exit %d, want a failure from k6's exit 99:\n%s", fail.code, fail.out)
		}
		if job.Artifacts.When != "always" {
			t.Errorf("artifacts.when = %q: results of a failed run would be lost", job.Artifacts.When)
		}
		checkResults(t, filepath.Join(ws, job.Artifacts.Paths[0]), "threshold-fail", false)
		reports, _ := filepath.Glob(filepath.Join(ws, job.Artifacts.Reports.JUnit))
		var failing int
		for _, f := range reports {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(`<failure message="mq_e2e_latency p(99) &lt; 1ns: measured`)) {
				failing++
			}
		}
		if len(reports) != 2 || failing != 1 {
			t.Errorf("reports.junit %q matches %d files, %d with the failing threshold; want 2 and 1", job.Artifacts.Reports.JUnit, len(reports), failing)
		}
		for _, c := range job.AfterScript {
			if natsWasRunning {
				// The shared broker serves the other tests: check the command, do not stop it.
				if r := shell(t, ws, env, "bash -n "+strings.Fields(c)[0]); r.code != 0 {
					t.Errorf("after_script %q: %s", c, r.out)
				}
				continue
			}
			if r := shell(t, ws, env, c); r.code != 0 {
				t.Errorf("after_script %q exited %d:\n%s", c, r.code, r.out)
			}
		}
	})
}

type shellResult struct {
	code int
	out  string
}

// shell runs a script as CI runners do (bash, stop at the first failure, pipefail).
func shell(t *testing.T, dir string, env []string, script string) shellResult {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return shellResult{ee.ExitCode(), out.String()}
	case err != nil:
		t.Fatalf("%s: %v", script, err)
	}
	return shellResult{0, out.String()}
}

// cleanEnv is the test's environment without what would point the examples outside their
// checkout (the test's own k6 binary and results folder, make's flags).
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MQBENCH_K6", "MQ_RESULTS", "MQ_PROGRESS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "COMPARE_OUT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// workspace copies the repository as a checkout would have it: no .git, no build output, no
// broker state, no results.
func workspace(t *testing.T, root string) string {
	t.Helper()
	ws := t.TempDir()
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		top := strings.Split(rel, string(filepath.Separator))[0]
		switch {
		case top == ".git" || top == ".cache" || top == "bin" || (top == "results" && rel != "results" && rel != filepath.Join("results", "README.md")):
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case fi.IsDir():
			return os.MkdirAll(filepath.Join(ws, rel), 0o755)
		case !fi.Mode().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(ws, rel), b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// makeBaseline stands in for a committed known-good run: the latest run of the scenario.
func makeBaseline(t *testing.T, ws, baseline, scenario string) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(ws, "results", scenario, "*", "summary.json"))
	if len(runs) == 0 || baseline == "" {
		return
	}
	dst := filepath.Join(ws, baseline)
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("cp", "-r", filepath.Dir(runs[len(runs)-1]), dst).CombinedOutput(); err != nil {
		t.Fatalf("baseline: %v\n%s", err, b)
	}
}

// checkResults: the uploaded folder holds a run of the scenario with every file people and CI use.
func checkResults(t *testing.T, dir, scenario string, pass bool) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, scenario, "*"))
	if len(runs) != 1 {
		t.Fatalf("%s: %d runs of %s, want 1", dir, len(runs), scenario)
	}
	for _, f := range []string{"summary.json", "summary.txt", "report.html", "junit.xml", "hgrm/c1.e2e.hgrm"} {
		if _, err := os.Stat(filepath.Join(runs[0], f)); err != nil {
			t.Errorf("results lack %s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(runs[0], "junit.xml"))
	if got := bytes.Contains(b, []byte(`failures="0"`)) && !bytes.Contains(b, []byte("<failure")); got != pass {
		t.Errorf("%s/junit.xml: all passed = %v, want %v", runs[0], got, pass)
	}
}
