package floor

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Measured turns a run's counts and histograms (ns) into the figures the bench reads (µs).
func TestMeasured(t *testing.T) {
	hist := func(ns ...int64) *hdr.Histogram {
		h := hdr.New(1, int64(time.Hour), 3)
		for _, v := range ns {
			_ = h.RecordValue(v)
		}
		return h
	}
	f := Figures{Rate: 1000, Pacing: "precise"}
	f.Measured(Run{Sent: 2000, Received: 1990, Sending: 2 * time.Second, Receiving: time.Second,
		E2E: hist(100_000, 200_000, 900_000), Intended: hist(300_000), Lag: hist(40_000), LateMax: 250 * time.Microsecond, CPU: 100 * time.Millisecond})
	for name, c := range map[string][2]float64{
		"sender rate": {f.SenderRate, 1000}, "receiver rate": {f.ReceiverRate, 1990},
		"e2e p50": {f.P50us, 200}, "e2e max": {f.MaxUs, 900}, "intended p99": {f.IntendedP99, 300},
		"lag p50": {f.LagP50us, 40}, "late max": {f.LateMaxUs, 250}, "cpu per message": {f.CPUPerMsgUs, 50},
	} {
		if got, want := c[0], c[1]; got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if f.Rate != 1000 || f.Pacing != "precise" || f.Sent != 2000 || f.Received != 1990 {
		t.Errorf("settings or counts lost: %+v", f)
	}
	f = Figures{}
	f.Measured(Run{Sent: 10, Sending: time.Second, E2E: hist(), Intended: hist(), Lag: hist()})
	if f.ReceiverRate != 0 {
		t.Errorf("nothing received, receiver rate %v", f.ReceiverRate)
	}
}
