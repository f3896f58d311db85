package driver

import (
	"context"
	"time"
)

// BrokerStats is implemented by drivers that can read the broker's own view of the run.
type BrokerStats interface {
	// BrokerStats samples the broker now. Called about once a second from one goroutine.
	// A field the broker does not expose in this configuration is Unknown (-1).
	// With an error, the Stats still holds what could be read (Unknown elsewhere).
	BrokerStats(ctx context.Context) (Stats, error)
}

// Stats is one sample of the broker's side.
type Stats struct {
	Backlog     int64   // messages the broker holds for mqbench's consumers of the destination: queue depth (ready + unacknowledged), stream/consumer pending, Kafka consumer-group lag summed over partitions
	CPUPercent  float64 // broker process CPU since the previous sample, percent of one core (first sample: since process start or Unknown)
	MemoryBytes int64   // broker process resident memory
}

// Unknown marks a Stats field the broker does not expose in this configuration.
const Unknown = -1

// UnknownStats is a sample in which nothing is known; drivers fill in what they can read.
func UnknownStats() Stats {
	return Stats{Backlog: Unknown, CPUPercent: Unknown, MemoryBytes: Unknown}
}

// CPUMeter turns a broker's cumulative CPU time (Redis used_cpu_*, Erlang's runtime) into
// Stats.CPUPercent. Brokers only expose the running total, so the percentage is the
// difference between two samples over the local (monotonic) time between them; the broker's
// own uptime counters are too coarse (Redis: whole seconds) for one-second windows.
// Not safe for concurrent use: BrokerStats is called from one goroutine.
type CPUMeter struct {
	last float64   // cumulative CPU seconds at the previous sample
	at   time.Time // when it was read
	ok   bool
}

// Percent records a sample taken at now of cpuSeconds (cumulative CPU time of the broker
// process) and returns the CPU used since the previous sample in percent of one core. With no
// previous sample, or when the counter went backwards (the broker restarted), it is the
// average since process start when uptime (seconds since the broker started, <= 0 when not
// known) is given, Unknown otherwise.
func (m *CPUMeter) Percent(now time.Time, cpuSeconds, uptime float64) float64 {
	prev, prevAt, had := m.last, m.at, m.ok
	m.last, m.at, m.ok = cpuSeconds, now, true
	if had && cpuSeconds >= prev {
		if dt := now.Sub(prevAt).Seconds(); dt > 0 {
			return 100 * (cpuSeconds - prev) / dt
		}
	}
	if uptime > 0 {
		return 100 * cpuSeconds / uptime
	}
	return Unknown
}

// OptionalSource is a stats endpoint a driver reads when it is there: a management or
// metrics HTTP API whose address the scenario may give, and that otherwise is tried at its
// usual port. A broker without that plugin is not an error: when the defaulted address fails
// before it ever answered, the source is given up for the run (its fields stay Unknown, and
// it is not tried once a second). An address the scenario gave, or one that answered before
// (a broker that stopped answering mid-run), reports its failures.
// Not safe for concurrent use: BrokerStats is called from one goroutine.
type OptionalSource struct {
	Explicit bool // the scenario named the address
	answered bool
	off      bool
}

// Off says the source was given up.
func (s *OptionalSource) Off() bool { return s.off }

// Result records the outcome of one read; it returns the error to report, nil when the read
// succeeded or the source was just given up.
func (s *OptionalSource) Result(err error) error {
	switch {
	case err == nil:
		s.answered = true
		return nil
	case !s.Explicit && !s.answered:
		s.off = true
		return nil
	}
	return err
}
