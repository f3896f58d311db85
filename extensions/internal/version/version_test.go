package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// Every way a binary is built names mqbench and k6 as the decision says: a stamp wins, then
// the module version (main module or k6's dependency), then the commit, then devel.
func TestDecide(t *testing.T) {
	k6 := &debug.Module{Path: K6Module, Version: "v2.1.0"}
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "aa29acd1b2c3d4e5f60718293a4b5c6d7e8f9012"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "aa29acd1b2c3d4e5f60718293a4b5c6d7e8f9012"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		name    string
		stamp   string
		bi      *debug.BuildInfo
		mqbench string
		k6      string
	}{
		{"no build info", "", nil, "devel", "unknown"},
		{"no build info, stamped", "v1.2.3", nil, "v1.2.3", "unknown"},
		{"stamp beats module version", "v1.2.3-4-gaa29acd", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.3"}, Deps: []*debug.Module{k6}}, "v1.2.3-4-gaa29acd", "v2.1.0"},
		{"stamp beats commit", " v1.2.3 \n", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}, Deps: []*debug.Module{k6}, Settings: dirty}, "v1.2.3", "v2.1.0"},
		{"bin/k6 from a tagged commit", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.0"}, Deps: []*debug.Module{k6}, Settings: vcs}, "v1.2.0", "v2.1.0"},
		{"bin/k6 from an untagged commit: Go's pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.0.0-20261128161900-aa29acd1b2c3"}, Deps: []*debug.Module{k6}, Settings: vcs}, "devel+aa29acd1b2c3", "v2.1.0"},
		{"bin/k6 after a tag, modified", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.1-0.20261128161900-aa29acd1b2c3+dirty"}, Deps: []*debug.Module{k6}, Settings: dirty}, "devel+aa29acd1b2c3+dirty", "v2.1.0"},
		{"bin/k6 without VCS (a source copy)", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}, Deps: []*debug.Module{k6}}, "devel", "v2.1.0"},
		{"go test binary", "", &debug.BuildInfo{Main: debug.Module{Path: Module}}, "devel", "unknown"},
		{"xk6 --with module@version", "", &debug.BuildInfo{Main: debug.Module{Path: "k6", Version: "(devel)"}, Deps: []*debug.Module{k6, {Path: Module, Version: "v1.1.0"}}}, "v1.1.0", "v2.1.0"},
		{"xk6 --with module@commit", "", &debug.BuildInfo{Main: debug.Module{Path: "k6"}, Deps: []*debug.Module{{Path: Module, Version: "v0.0.0-20261128161900-aa29acd1b2c3"}, k6}}, "v0.0.0-20261128161900-aa29acd1b2c3", "v2.1.0"},
		{"xk6 --with module=./folder: no version", "", &debug.BuildInfo{Main: debug.Module{Path: "k6"}, Deps: []*debug.Module{k6, {Path: Module, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "./extensions"}}}}, "devel", "v2.1.0"},
		{"replaced by another version", "", &debug.BuildInfo{Main: debug.Module{Path: "k6"}, Deps: []*debug.Module{k6, {Path: Module, Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1"}}}}, "v1.0.1", "v2.1.0"},
		{"k6 as the main module", "", &debug.BuildInfo{Main: debug.Module{Path: K6Module, Version: "v2.1.0"}, Deps: []*debug.Module{{Path: Module, Version: "v1.1.0"}}}, "v1.1.0", "v2.1.0"},
		{"k6 replaced by a fork's version", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.0"}, Deps: []*debug.Module{{Path: K6Module, Version: "v2.1.0", Replace: &debug.Module{Path: "example.com/k6", Version: "v2.1.1"}}}}, "v1.2.0", "v2.1.1"},
		{"k6 replaced by a folder", "", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.0"}, Deps: []*debug.Module{{Path: K6Module, Version: "v2.1.0", Replace: &debug.Module{Path: "../k6"}}}}, "v1.2.0", "unknown"},
	} {
		got := decide(c.stamp, c.bi)
		if got.Mqbench != c.mqbench || got.K6 != c.k6 {
			t.Errorf("%s: mqbench %q, k6 %q; want %q, %q", c.name, got.Mqbench, got.K6, c.mqbench, c.k6)
		}
	}
}

// The running binary (a test binary: no stamp, no VCS) names itself devel, and its Go.
func TestGet(t *testing.T) {
	i := Get()
	if i.Mqbench == "" || i.K6 == "" || i.Go != runtime.Version() {
		t.Errorf("Get() = %+v; want every version named, Go %s", i, runtime.Version())
	}
	if s := i.String(); !strings.HasPrefix(s, "mqbench "+i.Mqbench+" (k6 ") || !strings.HasSuffix(s, ", "+i.Go+")") {
		t.Errorf("String() = %q", s)
	}
}
