package docgen

import (
	"fmt"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Environment is docs/environment.md: every MQ_* variable and the results layout, from runenv.
func Environment() string {
	var b strings.Builder
	b.WriteString(header + "# The run environment\n\n")
	b.WriteString("The variables mqbench reads. `k6 x mqbench run` passes the process environment on (and k6's\n" +
		"`-e NAME=VALUE`); a distributed run's runners get theirs from `k6 x mqbench k8s`\n" +
		"([distributed.md](distributed.md)).\n\n")
	b.WriteString("| variable | default | what it does |\n|---|---|---|\n")
	for _, v := range runenv.Vars {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, v.Default, v.Meaning)
	}
	example := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fmt.Fprintf(&b, "\n## The results layout\n\n"+
		"A run writes `<root>/<scenario>/<stamp>/` ([results.md](results.md)): the root is `--results`, else\n"+
		"`%s`, else `%s`; the stamp is the run's UTC start in Go's layout `%s`\n"+
		"(`%s`), so a scenario's runs sort by time, and a second run started in the same second\n"+
		"gets `-2`, `-3`, … after it. A scenario folder names its latest run wherever a run folder is\n"+
		"asked for. Runner 1 of a distributed run of 2 writes its shard into\n`%s`, and the merge\nwrites the merged results into its parent.\n",
		runenv.Results, runenv.DefaultRoot, runenv.StampLayout, runenv.Stamp(example),
		runenv.ShardDir("<root>", "<scenario>", "<run id>", 1, 2))
	return b.String()
}
