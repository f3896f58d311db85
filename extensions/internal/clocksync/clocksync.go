// Package clocksync measures a runner's clock offset to a reference clock with NTP-style
// timestamped round trips over TCP: the runner writes its time t1, the reference answers with
// its time t2 as it read the request, the runner reads its time t4 on the answer. The
// offset (runner − reference) is (t1+t4)/2 − t2, and wherever between t1 and t4 the
// reference read its clock, the true offset is within half the round trip (t4−t1)/2 of it:
// that half round trip is the uncertainty reported, not an estimate of it. Of several round
// trips the shortest is kept (the least queueing, the tightest bound).
//
// The reference is `k6 x mqbench clock --listen ADDR` on any host every runner reaches (in
// make distributed and the itests: the machine the merge runs on). Not through the broker:
// not every broker can echo a message back to its sender, and a round trip through a loaded
// broker is long and lopsided, which widens the bound for nothing.
package clocksync

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"
)

// Sample is one measurement: the offset of the local clock to the reference and its bound,
// taken at At (local clock, ns).
type Sample struct {
	At          int64 `json:"at_ns"`
	Offset      int64 `json:"offset_ns"`
	Uncertainty int64 `json:"uncertainty_ns"`
}

// MaxOffset bounds the offset Measure accepts. NTP keeps hosts within milliseconds and an
// unsynchronised one drifts seconds a day; an hour or more is a wrong clock or a wrong (or
// hostile) reference, and correcting every stamp by it would shift the whole run's latencies
// rather than fix them: the run stops instead, so the clock gets fixed.
const MaxOffset = time.Hour

// Measure does n round trips to the reference at addr, reading the local clock with now
// (Unix ns as the runner stamps messages), and returns the one with the shortest round trip.
func Measure(addr string, n int, timeout time.Duration, now func() int64) (Sample, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return Sample{}, fmt.Errorf("clock reference %s: %w", addr, err)
	}
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	best := Sample{Uncertainty: -1}
	var buf [8]byte
	for range max(n, 1) {
		t1 := now()
		binary.LittleEndian.PutUint64(buf[:], uint64(t1))
		if _, err := c.Write(buf[:]); err != nil {
			return Sample{}, fmt.Errorf("clock reference %s: %w", addr, err)
		}
		if _, err := io.ReadFull(c, buf[:]); err != nil {
			return Sample{}, fmt.Errorf("clock reference %s: %w", addr, err)
		}
		t4 := now()
		t2 := int64(binary.LittleEndian.Uint64(buf[:]))
		half := (t4 - t1) / 2
		off := t1 + half - t2
		if off > int64(MaxOffset) || off < -int64(MaxOffset) {
			return Sample{}, fmt.Errorf("clock reference %s: this clock is %v off the reference's, more than the 1h a run corrects: set both clocks by NTP, or check the address names the reference", addr, time.Duration(off).Truncate(time.Second))
		}
		if best.Uncertainty < 0 || half < best.Uncertainty {
			best = Sample{At: t4, Offset: off, Uncertainty: half + 1} // +1: the integer halving
		}
	}
	return best, nil
}
