package jsmodule

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// shard.json travels (a CI artifact, the merge's input): its copy of the scenario keeps the
// ${NAME} references and loses the credentials written literally; it still hashes to its
// scenario_sha256 and parses, as the merge needs.
func TestShardScenarioWithoutCredentials(t *testing.T) {
	t.Setenv("MQB_T_SHARD_PW", "from-env-value")
	for _, c := range []struct{ name, url, gone, kept string }{
		{"literal password", "nats://user:s3cr3t-lit@127.0.0.1:4222", "s3cr3t-lit", "127.0.0.1:4222"},
		{"password from the environment", "nats://user:${MQB_T_SHARD_PW}@127.0.0.1:4222", "from-env-value", "${MQB_T_SHARD_PW}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			text := "name: shardy\nbroker: { type: nats, url: \"" + c.url + "\" }\nworkload: { destination: d, duration: 1s }\nmatrix:\n  - { size: 64B, rate: 10 }\n"
			path, _, run := loadedScenario(t, dir, "shardy", text)
			rm := &RootModule{path: path, run: run, resultsDir: dir, runner: 1, started: time.Now()}
			rm.dist.Runners, rm.dist.RunID = 2, "run-1"
			if err := rm.writeShard(&results.Summary{Scenario: "shardy"}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, results.ShardFile))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), c.gone) || strings.Contains(string(b), "user") {
				t.Errorf("shard.json holds credentials:\n%s", b)
			}
			var sh results.Shard
			if err := json.Unmarshal(b, &sh); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sh.ScenarioYAML, c.kept) {
				t.Errorf("scenario_yaml lost %q:\n%s", c.kept, sh.ScenarioYAML)
			}
			if sum := sha256.Sum256([]byte(sh.ScenarioYAML)); hex.EncodeToString(sum[:]) != sh.ScenarioSHA256 {
				t.Errorf("scenario_yaml does not hash to scenario_sha256")
			}
			if _, err := scenario.Parse(path, []byte(sh.ScenarioYAML)); err != nil {
				t.Errorf("the merge could not parse the copy: %v", err)
			}
		})
	}
}
