package cpu

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// On a virtual machine the hypervisor may run other guests on this one's CPUs while its
// threads want to run: Linux counts that time as steal. A shared 2-core host stole 16-45 %
// in bursts of minutes, and those seconds' latency tail grew ten-fold, so a run records the
// host's steal per second beside its latency (the regression gate leaves such seconds out).

// hostStatPath is the kernel's CPU time accounting (a variable for tests).
var hostStatPath = "/proc/stat"

// HostTicks reads the machine's CPU time, all CPUs together, in clock ticks: the time stolen
// by the hypervisor and all time (user, nice, system, idle, iowait, irq, softirq, steal;
// guest time is already inside user). ok is false where /proc/stat cannot be read.
func HostTicks() (steal, total uint64, ok bool) {
	f, err := os.Open(hostStatPath)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0, false
	}
	for i := 1; i <= 8; i++ {
		v, err := strconv.ParseUint(fields[i], 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += v
		if i == 8 {
			steal = v
		}
	}
	return steal, total, true
}

// StealMeter gives the share of the machine's CPU time stolen between readings.
type StealMeter struct{ first, last reading }

type reading struct {
	steal, total uint64
	ok           bool
}

// Percent returns the percentage of CPU time stolen since the previous call; ok is false on
// the first call, when /proc/stat is unreadable, or when no tick passed.
func (m *StealMeter) Percent() (pct float64, ok bool) {
	s, t, read := HostTicks()
	if !read {
		m.last.ok = false
		return 0, false
	}
	prev := m.last
	m.last = reading{s, t, true}
	if !m.first.ok {
		m.first = m.last
	}
	return share(prev, m.last)
}

// Overall returns the percentage stolen from the first reading to the latest one.
func (m *StealMeter) Overall() (pct float64, ok bool) { return share(m.first, m.last) }

func share(a, b reading) (float64, bool) {
	if !a.ok || !b.ok || b.total <= a.total || b.steal < a.steal {
		return 0, false
	}
	return 100 * float64(b.steal-a.steal) / float64(b.total-a.total), true
}
