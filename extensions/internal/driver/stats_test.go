package driver

import (
	"errors"
	"testing"
	"time"
)

func TestCPUMeter(t *testing.T) {
	var m CPUMeter
	t0 := time.Unix(1000, 0)
	if got := m.Percent(t0, 5, 0); got != Unknown {
		t.Errorf("first sample without uptime: %v, want Unknown", got)
	}
	if got := m.Percent(t0.Add(2*time.Second), 6, 0); got != 50 {
		t.Errorf("1 CPU second in 2 s: %v, want 50", got)
	}
	if got := m.Percent(t0.Add(3*time.Second), 8, 0); got != 200 {
		t.Errorf("2 CPU seconds in 1 s (two cores): %v, want 200", got)
	}
	// The broker restarted: the counter went back; with its uptime, the average since start.
	if got := m.Percent(t0.Add(4*time.Second), 1, 4); got != 25 {
		t.Errorf("after a restart: %v, want 25 (1 CPU second in 4 s of uptime)", got)
	}
	var f CPUMeter
	if got := f.Percent(t0, 3, 30); got != 10 {
		t.Errorf("first sample with uptime: %v, want 10", got)
	}
}

func TestOptionalSource(t *testing.T) {
	boom := errors.New("refused")
	var def OptionalSource
	if err := def.Result(boom); err != nil || !def.Off() {
		t.Errorf("defaulted source failing at first: err %v, off %v; want nil, true", err, def.Off())
	}
	var up OptionalSource
	if err := up.Result(nil); err != nil || up.Off() {
		t.Fatalf("answered: err %v, off %v", err, up.Off())
	}
	if err := up.Result(boom); err == nil || up.Off() {
		t.Errorf("defaulted source failing after it answered: err %v, off %v; want the error, still on", err, up.Off())
	}
	ex := OptionalSource{Explicit: true}
	if err := ex.Result(boom); err == nil || ex.Off() {
		t.Errorf("named source failing: err %v, off %v; want the error, still on", err, ex.Off())
	}
}
