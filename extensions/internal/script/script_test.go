package script

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// lib/mqbench.js (for `k6 run` from a clone) is a link to the embedded file: a broken or
// replaced link would give `k6 run` users another script than `k6 x mqbench run`.
func TestLibIsTheEmbeddedScript(t *testing.T) {
	lib, err := os.ReadFile(filepath.Join("..", "..", "..", "lib", Name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lib, Source) {
		t.Fatal("lib/mqbench.js is not extensions/internal/script/mqbench.js: restore the link (ln -s ../extensions/internal/script/mqbench.js lib/mqbench.js)")
	}
}

// lib/web-dashboard.json is a link to the embedded layout, for the same reason.
func TestLibIsTheEmbeddedDashboard(t *testing.T) {
	lib, err := os.ReadFile(filepath.Join("..", "..", "..", "lib", WebDashboardName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lib, WebDashboard) {
		t.Fatal("lib/web-dashboard.json is not extensions/internal/script/web-dashboard.json: restore the link")
	}
}
