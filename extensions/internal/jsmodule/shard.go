package jsmodule

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/version"
)

// writeShard writes shard.json beside the runner's results.
func (rm *RootModule) writeShard(s *results.Summary) error {
	raw, err := os.ReadFile(rm.path)
	if err != nil {
		return err
	}
	// The shard travels (an artifact, the merge's input): its copy of the scenario keeps the
	// ${NAME} references, not the credentials written in it; the hash is the copy's, which
	// is the same for every runner of one file, as the merge checks.
	if raw, err = redact.YAML(raw); err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	sh := results.Shard{Kind: results.ShardKind, Version: 1, Scenario: s.Scenario,
		ScenarioSHA256: hex.EncodeToString(sum[:]), ScenarioYAML: string(raw), RunID: rm.dist.RunID,
		Runner: rm.runner, Runners: rm.dist.Runners, Segment: rm.segment, Sequence: rm.sequence,
		Destination: rm.destination, StartedAt: rm.started.UTC().Format(time.RFC3339Nano),
		FinishedAt: time.Now().UTC().Format(time.RFC3339Nano)}
	v := version.Get()
	sh.Versions.K6, sh.Versions.Mqbench, sh.Versions.Go = v.K6, v.Mqbench, v.Go
	sh.Host, _ = os.Hostname()
	for _, c := range s.Cells {
		sh.Cells = append(sh.Cells, results.ShardCell{ID: c.ID, StartedAt: c.StartedAt, EndedAt: c.EndedAt})
	}
	if rm.run.Shared() {
		sh.Version, sh.Shared, sh.Role, sh.Clock = 2, true, rm.role(), rm.run.ClockReport()
		sh.Ledgers = map[string]ledger.Record{}
		for i, c := range rm.run.Scenario().Cells {
			sh.Ledgers[c.ID] = rm.run.LedgerRecord(i, rm.runner)
		}
	}
	b, err := json.MarshalIndent(sh, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(rm.resultsDir, results.ShardFile), append(b, '\n'), 0o644)
}
