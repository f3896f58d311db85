package driver

import "time"

// Reconnect pacing shared by the drivers that re-open a connection themselves when it dies
// (the client libraries of NATS, Kafka and Redis reconnect on their own).
const (
	// MinBackoff and MaxBackoff bound the wait between two attempts; it doubles from one to
	// the other.
	MinBackoff = 100 * time.Millisecond
	MaxBackoff = 2 * time.Second
)

// Backoff paces the attempts to re-open one connection: the first attempt after a connection
// that had been healthy (alive longer than MaxBackoff) is made at once, later ones wait 100 ms,
// 200 ms, … up to 2 s, so a dead broker is not hammered and a restarted one is found quickly.
type Backoff struct{ wait time.Duration }

// Died records that a connection opened at born died.
func (b *Backoff) Died(born time.Time) {
	if time.Since(born) > MaxBackoff {
		b.wait = 0
	}
}

// Sleep waits before the next attempt, or less if stop closes first (then it returns false).
func (b *Backoff) Sleep(stop <-chan struct{}) bool {
	d := b.wait
	b.wait = min(max(2*b.wait, MinBackoff), MaxBackoff)
	select {
	case <-stop:
		return false
	default:
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}
