// Package version is the one source of the versions a result names: mqbench's own, the k6
// it runs in and the Go runtime, so summary.json, report.html, junit.xml, `k6 version` and
// `k6 x mqbench --version` agree with each other and with the binary that made them.
package version

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Module is mqbench's Go module; K6Module is k6's.
const (
	Module   = "github.com/mqbench/xk6-mqbench"
	K6Module = "go.k6.io/k6/v2"
)

// StampVar is the variable a build names to stamp the version:
//
//	go build -ldflags "-X github.com/mqbench/xk6-mqbench/internal/version.stamp=v1.2.3"
const StampVar = Module + "/internal/version.stamp"

// stamp is set by the linker (StampVar) when the build knows the version, e.g. from
// `git describe` in a clone, where build info would only have a commit or nothing.
var stamp string

// Devel is the version of a build that names neither a version nor a commit.
const Devel = "devel"

// Info is the versions of this binary.
type Info struct {
	Mqbench string `json:"mqbench"` // v1.2.3, a pseudo-version, devel+<commit>[+dirty] or devel
	K6      string `json:"k6"`      // k6's module version, "unknown" when the build does not say
	Go      string `json:"go"`      // the Go runtime: go1.26.7
}

// String is the one-line form `--version` prints.
func (i Info) String() string { return "mqbench " + i.Mqbench + " (k6 " + i.K6 + ", " + i.Go + ")" }

// Get returns the versions of the running binary (read once).
var Get = sync.OnceValue(func() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	i := decide(stamp, bi)
	i.Go = runtime.Version()
	return i
})

// Mqbench is mqbench's version (Get().Mqbench).
func Mqbench() string { return Get().Mqbench }

// decide picks mqbench's and k6's versions from a link-time stamp and the build info (nil:
// none). mqbench: the stamp; else its module version, as the main module (a tagged build,
// not a pseudo-version Go made from the commit) or as a dependency of k6 (xk6, `go build`
// of a k6 main: a local replacement has none); else devel+<commit>[+dirty] from the VCS
// settings; else devel.
func decide(stamp string, bi *debug.BuildInfo) Info {
	i := Info{Mqbench: Devel, K6: "unknown"}
	stamp = strings.TrimSpace(stamp)
	if stamp != "" {
		i.Mqbench = stamp
	}
	if bi == nil {
		return i
	}
	if v := k6Version(bi); v != "" {
		i.K6 = v
	}
	if stamp != "" {
		return i
	}
	if v := moduleVersion(bi); v != "" {
		i.Mqbench = v
		return i
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		i.Mqbench = Devel + "+" + rev[:min(len(rev), 12)]
		if dirty {
			i.Mqbench += "+dirty"
		}
	}
	return i
}

// pseudo matches a pseudo-version's time and commit (v0.0.0-20261128161900-aa29acd1b2c3):
// what Go stamps on a main module built from an untagged commit.
var pseudo = regexp.MustCompile(`-(?:[0-9A-Za-z.]+\.)?\d{14}-[0-9a-f]{12}(?:\+[0-9A-Za-z.-]+)?$`)

// moduleVersion is mqbench's module version in the build info, "" when it has none.
func moduleVersion(bi *debug.BuildInfo) string {
	if bi.Main.Path == Module {
		if v := bi.Main.Version; usable(v) && !pseudo.MatchString(v) {
			return v
		}
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path != Module {
			continue
		}
		if d.Replace != nil {
			// A replacement by a folder has no version; by another module version, that one.
			if usable(d.Replace.Version) {
				return d.Replace.Version
			}
			return ""
		}
		if usable(d.Version) {
			return d.Version
		}
	}
	return ""
}

// k6Version is k6's module version in the build info (as `k6 version` reads it), "" when
// it has none.
func k6Version(bi *debug.BuildInfo) string {
	if bi.Main.Path == K6Module {
		if usable(bi.Main.Version) {
			return bi.Main.Version
		}
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path != K6Module {
			continue
		}
		if d.Replace != nil && usable(d.Replace.Version) {
			return d.Replace.Version
		}
		if d.Replace == nil && usable(d.Version) {
			return d.Version
		}
	}
	return ""
}

func usable(v string) bool { return v != "" && v != "(devel)" }
