package runner

import (
	"sync"
	"sync/atomic"
	"time"
)

// consumer_rate (scenario/consumerrate.go): each consumer connection takes at most the running
// cell's cap. A delivery that comes before its consumer's next slot waits in the callback, so
// the consumer stops reading and the broker holds the rest (prefetch windows and fetch buffers
// full), exactly as with a slow consumer. The message counts as received at its slot.

// catchUp is how far behind its schedule a capped consumer may fall and still take messages at
// once: timers wake late (~1 ms idle, tens of ms on a busy machine), and without this slack
// every late wake-up would push all later slots back, capping below the rate asked for (at
// 2 ms, four runs side by side on 2 cores took 800 of 1,000 msg/s). Past it an idle consumer
// starts afresh: it never saves up more than this much time's worth of messages for a burst.
const catchUp = 50 * time.Millisecond

// shortWait is the longest wait slept through without watching for Close.
const shortWait = 20 * time.Millisecond

type throttle struct {
	every    atomic.Int64   // ns between one consumer's deliveries; 0: no cap
	next     []atomic.Int64 // per consumer lane: run-clock ns of its next slot
	stop     chan struct{}  // closed by release: waiting deliveries go at once
	stopOnce sync.Once
	capped   atomic.Bool // a cap was set once
	released atomic.Bool // release was called: see wait
}

func newThrottle(lanes, rate int) *throttle {
	t := &throttle{next: make([]atomic.Int64, lanes), stop: make(chan struct{})}
	t.set(rate)
	return t
}

// set applies a cell's cap in messages per second (0: none); called as the cell starts.
func (t *throttle) set(rate int) {
	var every int64
	if rate > 0 {
		every = int64(time.Second) / int64(rate)
		t.capped.Store(true)
	}
	t.every.Store(every)
}

// release lifts the cap for good and lets every waiting delivery go (the run is closing).
func (t *throttle) release() {
	t.released.Store(true)
	t.every.Store(0)
	t.stopOnce.Do(func() { close(t.stop) })
}

// wait holds lane's delivery until the lane's next slot and returns when the message was
// taken (at without a cap). clock reads the run clock (ns): only a capped delivery needs it.
func (t *throttle) wait(lane int, at time.Time, clock func() int64) time.Time {
	every := t.every.Load()
	if every == 0 || lane < 0 || lane >= len(t.next) {
		if t.released.Load() && t.capped.Load() && lane >= 0 && lane < len(t.next) {
			// Released: what the cap held is taken now. A client hands over a fetched batch with
			// the batch's receipt time, seconds before a capped consumer gets to its end: with that
			// time the timeline put the batch's rest seconds before the freeze, while the ledger,
			// sealed at the freeze, counted it late (Kafka: 1,500-3,700 in one drain second).
			return time.Now()
		}
		return at
	}
	n := &t.next[lane]
	now := clock()
	var slot int64
	for {
		old := n.Load()
		slot = max(old, now-int64(catchUp))
		if n.CompareAndSwap(old, slot+every) {
			break
		}
	}
	d := time.Duration(slot - now)
	if d <= 0 {
		// taken now: a client hands over a fetched batch with the batch's receipt time, which
		// for a capped consumer may be seconds before it takes the last of it
		return time.Now()
	}
	if d <= shortWait {
		time.Sleep(d)
	} else {
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
		case <-t.stop:
			tm.Stop()
		}
	}
	return time.Now()
}
