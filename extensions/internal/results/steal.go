package results

// NoisyStealPct: a second in which the host (a virtual machine's hypervisor) gave more than
// this share of the machine's CPU time to other guests is a noisy second. On a shared 2-core
// host such seconds (16-45 % stolen, in bursts of minutes) had an e2e p99 of 2-17 ms against
// ~0.5 ms around them: the host's latency, not the broker's. summary.txt and report.html say
// how many a cell had; compare's gate leaves them out by default.
const NoisyStealPct = 2.0

// NoisySeconds counts the cell's seconds in which the host stole more than pct percent.
func (c *Cell) NoisySeconds(pct float64) int {
	n := 0
	for _, s := range c.HostSteal {
		if s.Pct > pct {
			n++
		}
	}
	return n
}
