package itest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `k6 x mqbench ladder` on the in-process NATS server beside a peer script: a row per rung,
// each rule's best in the closing line, the rung's scenario, log and results in --dir; a rung
// that does not complete (its broker unreachable) stops the ladder with 118.
func TestLadder(t *testing.T) {
	bin := k6Binary(t)
	dir := t.TempDir()
	// The peer holds up to 200 msg/s and says so in its column.
	peer := filepath.Join(dir, "peer.sh")
	body := "#!/bin/sh\nif [ \"$1\" -le 200 ]; then h=1; else h=0; fi\necho noise\nprintf '%s\\tpeer %s/%s on %s\\n' \"$h\" \"$1\" \"$2\" \"$3\"\n"
	if err := os.WriteFile(peer, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	common := []string{"x", "mqbench", "ladder", "--name", "lad", "--dir", dir, "--duration", "2s", "--warmup", "1s", "--drain", "1s",
		"--per-batch", "200", "--row", "%-5s %-3s %-30s %s", "--line", "dropped,lost,errors"}
	for _, tc := range []struct {
		name, broker string
		code         int
		want         []string // lines of stdout, in order
		stderr       string
	}{
		{"climbs", "{ type: nats, url: embedded }", 0, []string{
			"200   1   0 0                            peer 200/1 on 1",
			"400   2   0 0                            peer 400/2 on 1  (not held)",
			"#ladder\tbest\t400 200\tbatch\t2 1"}, ""},
		{"no results", `{ type: nats, url: "nats://127.0.0.1:1" }`, 118, nil, "mqbench ladder: the lad-200 run did not complete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append(append(common, "--broker", tc.broker, "200", "400", "--"), peer)...)
			r := execRun(t, cmd)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d and stderr with %q\n%s", r.code, tc.code, tc.stderr, r)
			}
			if tc.want == nil {
				return
			}
			if got := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("stdout\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), r)
			}
			for _, f := range []string{"lad-200.yaml", "lad-200.log", "lad-400.yaml"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "results", "lad-400", "*", "summary.json")); len(m) != 1 {
				t.Errorf("results of lad-400: %v", m)
			}
		})
	}
}
