package itest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docker/Dockerfile describes the image scripts/image/build.sh builds without a daemon
// (make test builds it before the integration tests): same entrypoint, working directory and
// environment, so people with Docker get the image the tests ran.
func TestDockerfileDescribesTheBuiltImage(t *testing.T) {
	root := repoRoot(t)
	layout := filepath.Join(root, ".cache", "image", "layout")
	if _, err := os.Stat(filepath.Join(layout, "index.json")); err != nil {
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatalf("no image at %s: make test builds it (scripts/image/test.sh)", layout)
		}
		t.Skip("no image built: scripts/image/build.sh")
	}
	blob := func(digest string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(digest, "sha256:")))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	var index struct{ Manifests []struct{ Digest string } }
	b, err := os.ReadFile(filepath.Join(layout, "index.json"))
	if err != nil || json.Unmarshal(b, &index) != nil || len(index.Manifests) != 1 {
		t.Fatalf("index.json: %v %s", err, b)
	}
	var manifest struct{ Config struct{ Digest string } }
	blob(index.Manifests[0].Digest, &manifest)
	var config struct {
		Config struct {
			Entrypoint []string
			WorkingDir string
			Env        []string
			User       string
		}
	}
	blob(manifest.Config.Digest, &config)

	df, err := os.ReadFile(filepath.Join(root, "docker", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	final := string(df)[strings.LastIndex(string(df), "FROM scratch"):]
	var entry []string
	if m := regexp.MustCompile(`(?m)^ENTRYPOINT (\[.*\])$`).FindStringSubmatch(final); m == nil || json.Unmarshal([]byte(m[1]), &entry) != nil {
		t.Fatalf("Dockerfile: no ENTRYPOINT [...] in the final stage")
	}
	if !slices.Equal(entry, config.Config.Entrypoint) || !slices.Equal(entry, []string{"/usr/local/bin/k6", "x", "mqbench", "run"}) {
		t.Errorf("entrypoint: Dockerfile %q, image %q", entry, config.Config.Entrypoint)
	}
	if m := regexp.MustCompile(`(?m)^WORKDIR (\S+)$`).FindStringSubmatch(final); m == nil || m[1] != config.Config.WorkingDir {
		t.Errorf("working directory: Dockerfile %v, image %q", m, config.Config.WorkingDir)
	}
	for _, kv := range strings.Fields(regexp.MustCompile(`(?m)^ENV (.*)$`).FindStringSubmatch(final)[1]) {
		if !slices.Contains(config.Config.Env, kv) {
			t.Errorf("Dockerfile sets %s, the image does not (its env: %q)", kv, config.Config.Env)
		}
	}
	if strings.Contains(final, "\nUSER ") != (config.Config.User != "") {
		t.Errorf("user: the Dockerfile and the image disagree (image user %q)", config.Config.User)
	}
}
