package itest

import (
	"sort"
	"sync"
	"testing"
	"time"
)

// The waiting tier: tests whose time goes to brokers starting, dying and coming back (private
// instances on their own ports, low rates) run side by side after the sequential itests, which
// judge latency and pacing on an otherwise idle machine. At most waitingSlots run at once
// (2 cores: four restarting JVMs already double a restart's time), and a free slot goes to
// the waiting test with the longest expected time first, so the longest do not start last.
// go test's -parallel must not be lower than the tier's size for that order to hold
// (scripts/test.sh); with a lower one the tier still runs, in go test's order.
const waitingSlots = 4

// waitingSettle: the tier's tests are let go together when the sequential tests end (a
// parallel test's subtests a little later); a slot is given once no test has asked for this
// long, so the longest of them gets it, not the first to ask.
const waitingSettle = 300 * time.Millisecond

var waiting = struct {
	mu        sync.Mutex
	cond      *sync.Cond
	free      int
	queue     []turn // the tests waiting for slots, longest first
	lastAsked time.Time
}{free: waitingSlots}

// turn is one test's request: its expected time (only to order the tier) and the slots it
// takes (a three-node cluster takes two: its nodes start and fail over as one broker's would
// twice).
type turn struct {
	expected time.Duration
	slots    int
}

func init() { waiting.cond = sync.NewCond(&waiting.mu) }

// waitTurn makes t a parallel test of the waiting tier and returns once it holds a slot;
// the slot is given back when t (and its subtests) end. expected is roughly how long t takes
// alone (its longest cell and broker restarts), only to order the tier.
func waitTurn(t *testing.T, expected time.Duration) {
	t.Helper()
	t.Parallel()
	waitSlots(t, turn{expected, 1})
}

// waitClusterTurn is waitTurn for a test on a shared three-node cluster: two slots, and the
// cluster to itself (one test's faults must not land in another's run on the same cluster),
// waited for before the slots so that a test waiting for its cluster holds none.
func waitClusterTurn(t *testing.T, broker string, expected time.Duration) {
	t.Helper()
	t.Parallel()
	clusterTurn[broker].Lock()
	t.Cleanup(clusterTurn[broker].Unlock) // after the slots are given back and the cluster released
	waitSlots(t, turn{expected, 2})
}

func waitSlots(t *testing.T, me turn) {
	t.Helper()
	asked := time.Now()
	waiting.mu.Lock()
	waiting.lastAsked = time.Now()
	waiting.queue = append(waiting.queue, me)
	sort.SliceStable(waiting.queue, func(i, j int) bool { return waiting.queue[i].expected > waiting.queue[j].expected })
	waiting.cond.Broadcast()
	for {
		if waiting.free >= me.slots && waiting.queue[0] == me {
			if quiet := time.Since(waiting.lastAsked); quiet < waitingSettle {
				waiting.mu.Unlock()
				time.Sleep(waitingSettle - quiet)
				waiting.mu.Lock()
				continue
			}
			break
		}
		waiting.cond.Wait()
	}
	waiting.queue = waiting.queue[1:]
	waiting.free -= me.slots
	waiting.cond.Broadcast()
	waiting.mu.Unlock()
	got := time.Now()
	t.Cleanup(func() {
		// The tier's timeline in go test -v's output: what to move when make test grows.
		t.Logf("waiting tier: %d slot(s) after %.0fs in the queue, held %.0fs", me.slots, got.Sub(asked).Seconds(), time.Since(got).Seconds())
		waiting.mu.Lock()
		waiting.free += me.slots
		waiting.cond.Broadcast()
		waiting.mu.Unlock()
	})
}

// sideBySideSlots: how many subtests of one sequential test run at once (sideBySide).
const sideBySideSlots = 3

var sideBySideTurn = make(chan struct{}, sideBySideSlots)

// sideBySide lets the subtests of a sequential test run up to sideBySideSlots at a time. For
// subtests on different brokers (or destinations) at low rates that judge delivery, the
// ledger and generous bounds, not latency or pacing on an idle machine: their runs mostly
// wait out warm-up, duration and drain. The parent ends only when all of them have, so the
// next sequential test still starts on an idle machine.
func sideBySide(t *testing.T) {
	t.Helper()
	t.Parallel()
	sideBySideTurn <- struct{}{}
	t.Cleanup(func() { <-sideBySideTurn })
}
