// Package floor is what the plain-client floor programs (cmd/natsfloor, cmd/mqttfloor) share:
// how a run's figures are printed for the bench sections, and the process's CPU time.
package floor

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// Figures are a floor run's figures under the names the bench sections read (mqbench's
// summary.json names where they exist).
type Figures struct {
	Rate         int     `json:"rate"`
	Batch        int     `json:"batch"`
	Size         int     `json:"size"`
	Sent         int64   `json:"sent"`
	Received     int64   `json:"received"`
	SenderRate   float64 `json:"sender_rate"`
	ReceiverRate float64 `json:"receiver_rate"`
	P50us        float64 `json:"e2e_p50_us"`
	P99us        float64 `json:"e2e_p99_us"`
	MaxUs        float64 `json:"e2e_max_us"`
	IntendedP50  float64 `json:"e2e_intended_p50_us"`
	IntendedP99  float64 `json:"e2e_intended_p99_us"`
	LagP50us     float64 `json:"schedule_lag_p50_us"`
	LagP99us     float64 `json:"schedule_lag_p99_us"`
	LateMaxUs    float64 `json:"schedule_lag_max_us"`
	Pacing       string  `json:"pacing"`
	CPUPerMsgUs  float64 `json:"cpu_per_message_us"`
}

// Report writes result (a struct with json tags) to stdout: its JSON, or, when fields is not
// empty, the comma-separated fields it names, space-separated (for scripts).
func Report(result any, fields string) error {
	b, err := json.Marshal(result)
	if err != nil || fields == "" {
		_, _ = os.Stdout.Write(append(b, '\n'))
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var out []string
	for _, f := range strings.Split(fields, ",") {
		v, ok := m[f]
		if !ok {
			return fmt.Errorf("-fields: no field %q in the result", f)
		}
		if n, isNum := v.(float64); isNum {
			out = append(out, strconv.FormatFloat(n, 'f', -1, 64))
		} else {
			out = append(out, fmt.Sprint(v))
		}
	}
	_, err = fmt.Println(strings.Join(out, " "))
	return err
}

// CPUUsed is the process's CPU time so far (user + system): publisher and subscriber.
func CPUUsed() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Run is what a floor run measured, for Figures.
type Run struct {
	Sent, Received     int64
	Sending, Receiving time.Duration // the sending schedule's length; first to last receipt
	// E2E, Intended and Lag are the histograms (ns) of end-to-end latency, of latency from
	// the intended send time, and of schedule lag; LateMax the latest iteration start.
	E2E, Intended, Lag *hdr.Histogram
	LateMax, CPU       time.Duration
}

// Measured fills in the figures of what the run measured (rates, percentiles in µs, CPU per
// message), keeping the run's settings (rate, batch, size, pacing).
func (f *Figures) Measured(r Run) {
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	f.Sent, f.Received = r.Sent, r.Received
	f.SenderRate = float64(r.Sent) / r.Sending.Seconds()
	if r.Receiving > 0 {
		f.ReceiverRate = float64(r.Received) / r.Receiving.Seconds()
	}
	f.P50us, f.P99us, f.MaxUs = us(hist.ValueAt(r.E2E, 50)), us(hist.ValueAt(r.E2E, 99)), us(r.E2E.Max())
	f.IntendedP50, f.IntendedP99 = us(hist.ValueAt(r.Intended, 50)), us(hist.ValueAt(r.Intended, 99))
	f.LagP50us, f.LagP99us, f.LateMaxUs = us(hist.ValueAt(r.Lag, 50)), us(hist.ValueAt(r.Lag, 99)), us(int64(r.LateMax))
	f.CPUPerMsgUs = r.CPU.Seconds() * 1e6 / float64(max(r.Sent, 1))
}
