package handover

import (
	"reflect"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

func env(m map[string]string) runenv.Getenv { return func(k string) string { return m[k] } }

// The run's values win over the environment's, in this process and in a child's
// environment; what the run leaves unset is the environment's.
func TestRunValuesOverTheEnvironment(t *testing.T) {
	base := map[string]string{runenv.Results: "env-root", runenv.Progress: "5s", runenv.Samples: "raw"}
	for _, tc := range []struct {
		name    string
		run     *Run
		want    map[string]string // variable → what the module reads
		environ []string
	}{
		{"nothing set", &Run{},
			map[string]string{runenv.Results: "env-root", runenv.AllowFaultCommands: "", runenv.Progress: "5s", runenv.Samples: "raw"},
			[]string{"MQ_RESULTS=env-root", "MQ_PROGRESS=5s", "MQ_SAMPLES=raw"}},
		{"every value", &Run{Root: "out", AllowFaultCommands: true, Progress: "1s"},
			map[string]string{runenv.Results: "out", runenv.AllowFaultCommands: "1", runenv.Progress: "1s", runenv.Samples: "raw"},
			[]string{"MQ_SAMPLES=raw", "MQ_RESULTS=out", "MQ_ALLOW_FAULT_COMMANDS=1", "MQ_PROGRESS=1s"}},
	} {
		get := tc.run.Getenv(env(base))
		for name, want := range tc.want {
			if got := get(name); got != want {
				t.Errorf("%s: %s reads %q, want %q", tc.name, name, got, want)
			}
		}
		in := []string{"MQ_RESULTS=env-root", "MQ_PROGRESS=5s", "MQ_SAMPLES=raw"}
		if got := tc.run.Environ(in); !reflect.DeepEqual(got, tc.environ) {
			t.Errorf("%s: a child's environment %q, want %q", tc.name, got, tc.environ)
		}
	}
}

// The module finds the hand-over of the file run named, and none once run took it back; the
// folder it made is the one run reads.
func TestGiveForMadeDir(t *testing.T) {
	r := &Run{File: "s.yaml"}
	takeBack := Give(r)
	for _, tc := range []struct {
		file string
		want *Run
	}{{"s.yaml", r}, {"other.yaml", nil}, {"", nil}} {
		if got := For(tc.file); got != tc.want {
			t.Errorf("For(%q) = %p, want %p", tc.file, got, tc.want)
		}
	}
	if d := r.Dir(); d != "" {
		t.Errorf("Dir before the module made one: %q", d)
	}
	For("s.yaml").Made("results/s/20260102T030405Z")
	if d := r.Dir(); d != "results/s/20260102T030405Z" {
		t.Errorf("Dir = %q, want the folder made", d)
	}
	takeBack()
	if got := For("s.yaml"); got != nil {
		t.Errorf("For after the run: %p, want none (a later plain load reads the environment)", got)
	}
	// A later run's hand-over is not taken back by an earlier run's.
	later := &Run{File: "s.yaml"}
	defer Give(later)()
	takeBack()
	if got := For("s.yaml"); got != later {
		t.Errorf("an earlier run took back a later one's hand-over")
	}
}
