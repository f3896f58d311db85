package runner

import (
	"testing"
	"time"
)

// A capped consumer takes its messages no faster than its rate however fast they come, an
// uncapped one at once, and an idle one saves up no burst beyond the catch-up slack.
func TestThrottlePacesEachConsumer(t *testing.T) {
	cases := []struct {
		name  string
		rate  int
		n     int           // back-to-back deliveries on one consumer
		idle  time.Duration // before them, the consumer took one message and waited this long
		least time.Duration // the cap: the n deliveries cannot take less
	}{
		{"no cap", 0, 1000, 0, 0},
		{"1000/s", 1000, 501, 0, 500*time.Millisecond - catchUp},
		{"20000/s", 20000, 10001, 0, 500*time.Millisecond - catchUp},
		{"after idling", 100, 11, 300 * time.Millisecond, 100*time.Millisecond - catchUp},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			epoch := time.Now()
			th := newThrottle(2, c.rate)
			clock := func() int64 { return int64(time.Since(epoch)) }
			if c.idle > 0 {
				th.wait(0, time.Now(), clock)
				time.Sleep(c.idle)
			}
			start := time.Now()
			var last time.Time
			for i := 0; i < c.n; i++ {
				last = th.wait(0, time.Now(), clock)
			}
			took := time.Since(start)
			if took < c.least {
				t.Errorf("%d deliveries took %v, less than the cap allows (%v)", c.n, took, c.least)
			}
			// and no slower than it allows, give or take a busy machine's timers
			if c.least > 0 && took > 3*c.least+100*time.Millisecond {
				t.Errorf("%d deliveries took %v: the cap held them well below %d/s", c.n, took, c.rate)
			}
			if c.rate == 0 && took > 50*time.Millisecond {
				t.Errorf("%d uncapped deliveries took %v", c.n, took)
			}
			if last.Before(start) {
				t.Errorf("the last delivery was taken at %v, before the first came", last)
			}
			// the other consumer has its own slots: its first message goes at once
			if d := time.Since(th.wait(1, time.Now(), clock)); d > 5*time.Millisecond {
				t.Errorf("consumer 1's first delivery waited %v", d)
			}
		})
	}
}

// Closing the run lets a delivery waiting for a distant slot go at once.
func TestThrottleReleaseEndsWaits(t *testing.T) {
	th := newThrottle(1, 1) // one message per second
	epoch := time.Now()
	th.wait(0, time.Now(), func() int64 { return 0 })
	done := make(chan time.Duration)
	go func() {
		start := time.Now()
		th.wait(0, time.Now(), func() int64 { return int64(time.Since(epoch)) })
		done <- time.Since(start)
	}()
	time.Sleep(50 * time.Millisecond)
	th.release()
	select {
	case d := <-done:
		if d > 500*time.Millisecond {
			t.Errorf("the waiting delivery went after %v", d)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("release did not end the wait")
	}
	if d := time.Since(th.wait(0, time.Now(), func() int64 { return int64(time.Since(epoch)) })); d > 5*time.Millisecond {
		t.Errorf("after release a delivery waited %v", d)
	}
}

// After the release, the rest of a batch a capped consumer was holding is taken when it is
// handed over, not at the batch's receipt seconds before; a consumer never capped keeps the
// client's receipt time.
func TestThrottleReleasedTakesNow(t *testing.T) {
	fetched := time.Now().Add(-3 * time.Second)
	for _, tc := range []struct {
		name string
		rate int
		now  bool
	}{{"capped", 1000, true}, {"never capped", 0, false}} {
		th := newThrottle(1, tc.rate)
		th.release()
		got := th.wait(0, fetched, func() int64 { return 0 })
		if took := got.Sub(fetched) > time.Second; took != tc.now {
			t.Errorf("%s: taken at %v after the fetch, want now: %v", tc.name, got.Sub(fetched), tc.now)
		}
	}
}
