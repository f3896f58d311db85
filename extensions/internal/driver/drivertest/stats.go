package drivertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// StatsWant is what a driver's BrokerStats must report once n messages wait unconsumed.
type StatsWant struct {
	Backlog int64 // the sent count, or driver.Unknown when the configuration exposes none
	CPU     bool  // CPUPercent is known (>= 0); false: it must be Unknown
	Memory  bool  // MemoryBytes is known (> 0); false: it must be Unknown
}

// BrokerStats opens the driver, runs Setup, takes a first sample, sends n messages (waiting
// for each acknowledgement where there is one) while no consumer reads them, and waits up to
// 30 s (brokers refresh their figures every few seconds) for a sample matching want; then
// Teardown. Every sample must be error-free. It returns the matching sample.
func BrokerStats(t *testing.T, name string, cfg driver.Config, n int, want StatsWant) driver.Stats {
	t.Helper()
	spec, cfg := withDefaults(t, name, cfg)
	s, bs := openSetUp[driver.BrokerStats](t, name, spec, cfg, 90*time.Second)
	defer s.done()
	defer func() {
		if err := s.teardown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	d, ctx := s.d, s.ctx
	first, err := bs.BrokerStats(ctx)
	if err != nil {
		t.Fatalf("first sample: %v", err)
	}
	t.Logf("before sending: %+v", first)

	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		a, err := p.Send(ctx, driver.Message{Value: fmt.Appendf(nil, "stats %d", i)})
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if a != nil {
			if err := a.Wait(ctx); err != nil {
				t.Fatalf("ack %d: %v", i, err)
			}
		}
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	var st driver.Stats
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err = bs.BrokerStats(ctx)
		if err != nil {
			t.Fatalf("sample: %v", err)
		}
		if st.Backlog == want.Backlog && statsFieldsOK(st, want) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d sends: %+v, want Backlog %d %s", n, st, want.Backlog, statsFieldsOK(st, want))
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("after %d sends: %+v", n, st)
	return st
}

// statsFieldsOK says what is wrong with st's CPU and memory fields ("" when nothing).
func statsFieldsOK(st driver.Stats, want StatsWant) string {
	switch {
	case want.CPU && st.CPUPercent < 0:
		return "(CPUPercent unknown, want >= 0)"
	case !want.CPU && st.CPUPercent != driver.Unknown:
		return "(CPUPercent known, want Unknown)"
	case want.Memory && st.MemoryBytes <= 0:
		return "(MemoryBytes unknown, want > 0)"
	case !want.Memory && st.MemoryBytes != driver.Unknown:
		return "(MemoryBytes known, want Unknown)"
	}
	return ""
}
