package pacer

import "time"

// maxSpinShare bounds the time the pacer may spend spinning to a twentieth of the gap between
// two wake-ups (5% of one core at most), so at high rates, where the runtime is busy enough to
// run its timers itself, it costs next to nothing.
const maxSpinShare = 20

// wakeLead learns how late the kernel timer's wake-up reaches the pacer's goroutine (an
// idle CPU's exit and the poller's hand-off: ~30 µs on a virtual machine) so the alarm can
// be armed that much before a due time, and the pacer spins the few microseconds left until
// it. Waking on time and parking at once would not do: the runtime, seeing its next timer a
// few microseconds away, would block in epoll_wait for a whole millisecond.
//
// The estimate is a smoothed mean and mean deviation of the latency (as TCP's round-trip
// timer keeps them); the lead is the mean plus twice the deviation, so most wake-ups come
// early by a little and few late.
type wakeLead struct {
	mean, dev time.Duration
}

// observe records one wake-up's latency: how long after the armed instant the goroutine ran.
// Values outside (0, 1 ms] are not wake-up latencies (a descheduled process, a clock step)
// and are ignored.
func (w *wakeLead) observe(latency time.Duration) {
	if latency <= 0 || latency > time.Millisecond {
		return
	}
	d := latency - w.mean
	w.mean += d / 8
	w.dev += (d.Abs() - w.dev) / 4
}

// lead is how long before a due time to arm the alarm, gap after the previous wake-up.
func (w *wakeLead) lead(gap time.Duration) time.Duration {
	return max(0, min(w.mean+2*w.dev, gap/maxSpinShare))
}
