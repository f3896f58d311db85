package jsmodule

// conclude gives the run its one verdict (teardown, after the runner closed): every threshold
// is judged once more, on ledgers that no longer change (runner.Seal), and k6 gets these
// verdicts as the gauges' last values, so its exit code and summary.json (WriteResults,
// which reuses them) come from the same judgement. A confirmation or delivery that arrived
// after a cell's drain, while the run was closing, is in both.
func (mi *ModuleInstance) conclude() {
	rm := mi.root
	rm.run.Seal()
	rm.mu.Lock()
	rm.final = nil // judged before the seal: a late answer may have moved a message since
	rm.mu.Unlock()
	if s := mi.verdictSamples(rm.judge(true)); len(s) > 0 {
		mi.pushBounded(s)
	}
}
