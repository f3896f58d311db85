package drivertest

import (
	"encoding/binary"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// Requesters is how many requesters RunRequestReply opens.
	Requesters = 2
	// Requests is how many requests each requester sends.
	Requests = 1000
	// requestGap paces each requester (2,000 requests/s each, in bursts of 10 every 5 ms), so
	// the round trips measure the driver rather than a backlog of the whole test's requests.
	requestGap = 500 * time.Microsecond
)

// RunRequestReply is the request-reply conformance test: nResponders responders and
// Requesters requesters, each sending Requests requests with distinct bodies (of a few sizes)
// on a fixed schedule, without waiting for replies. It asserts that the driver's Spec says request-reply works with
// cfg's options, that every request's body came back unchanged exactly once to the requester
// that sent it (never to the other), within maxLatency of its send, that several responders
// share the requests (a request answered by two would come back twice), and that closing is
// idempotent, bounded, and stops deliveries.
func RunRequestReply(t *testing.T, name string, cfg driver.Config, nResponders int) {
	t.Helper()
	spec, cfg := withDefaults(t, name, cfg)
	if !driver.Has(spec.RequestReply, cfg.Options) {
		t.Fatalf("%s: Spec.RequestReply does not allow request-reply with options %+v", name, cfg.Options)
	}
	s, rr := openSetUp[driver.RequestReply](t, name, spec, cfg, 60*time.Second, "Close")
	defer s.done()
	ctx := s.ctx

	responders := make([]driver.Responder, nResponders)
	for i := range responders {
		r, err := rr.NewResponder(ctx, i)
		if err != nil {
			t.Fatalf("NewResponder(%d): %v", i, err)
		}
		responders[i] = r
		defer r.Close()
		if err := r.Start(ctx); err != nil {
			t.Fatalf("responder %d Start: %v", i, err)
		}
	}

	base := time.Now()
	rec := &replies{count: make(map[uint64]int, Requesters*Requests)}
	var closed [Requesters]atomic.Bool
	requesters := make([]driver.Publisher, Requesters)
	for i := range requesters {
		p, err := rr.NewRequester(ctx, i, func(v []byte, at time.Time) {
			if closed[i].Load() {
				rec.fail(fmt.Sprintf("requester %d: reply delivered after Close returned", i))
				return
			}
			rec.record(i, base, v, at)
		})
		if err != nil {
			t.Fatalf("NewRequester(%d): %v", i, err)
		}
		requesters[i] = p
		defer p.Close()
	}

	// Each requester sends on a fixed schedule, never waiting for a reply: the open model the
	// runner uses.
	nAcks := sendAll(t, ctx, "requester", requesters, func(r int) iter.Seq2[uint64, driver.Message] {
		return func(yield func(uint64, driver.Message) bool) {
			start := time.Now()
			for i := range uint64(Requests) {
				if i%10 == 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * requestGap)))
				}
				if !yield(i, driver.Message{Value: requestBody(requestID(r, i), time.Since(base))}) {
					return
				}
			}
		}
	})

	const want = Requesters * Requests
	awaitReceived(&rec.received, want, 200*time.Millisecond)

	rec.mu.Lock()
	var missing, dups []uint64
	for r := range Requesters {
		for i := range uint64(Requests) {
			switch c := rec.count[requestID(r, i)]; {
			case c == 0:
				missing = append(missing, requestID(r, i))
			case c > 1:
				dups = append(dups, requestID(r, i))
			}
		}
	}
	got, problems, minRTT, maxRTT := rec.received.Load(), rec.problems, rec.minRTT, rec.maxRTT
	rec.mu.Unlock()

	t.Logf("%s: %d responders, sent %d requests, acked %d, replies %d, round trip min %v max %v", name, nResponders, want, nAcks, got, minRTT, maxRTT)
	for i, p := range requesters {
		if dr, ok := p.(Dropper); ok && dr.Dropped() > 0 {
			t.Errorf("requester %d: client dropped %d replies", i, dr.Dropped())
		}
	}
	if len(problems) > 0 {
		t.Errorf("%d bad replies, first: %s", len(problems), problems[0])
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d requests got no reply within %v (first missing: %v)", len(missing), want, receiveTimeout, head(missing))
	}
	if len(dups) > 0 {
		t.Errorf("%d requests answered more than once (first: %v)", len(dups), head(dups))
	}
	if got != want && len(missing) == 0 && len(dups) == 0 {
		t.Errorf("received %d replies, want %d", got, want)
	}
	if minRTT <= 0 {
		t.Errorf("minimum round trip %v, want > 0", minRTT)
	}
	if maxRTT >= maxLatency {
		t.Errorf("maximum round trip %v, want < %v", maxRTT, maxLatency)
	}

	// Close everything twice (Close must be idempotent and bounded); a reply handed over
	// after a requester's Close returned is a failure (recorded by its callback).
	for i, p := range requesters {
		closeTwice(t, "requester", i, p, func() { closed[i].Store(true) })
	}
	for i, r := range responders {
		closeTwice(t, "responder", i, r, nil)
	}
	rec.mu.Lock()
	if late := rec.problems[len(problems):]; len(late) > 0 {
		t.Errorf("%d bad replies while closing, first: %s", len(late), late[0])
	}
	rec.mu.Unlock()
	if err := s.teardown(ctx); err != nil {
		t.Fatalf("Teardown: %v", err)
	}
}

// requestID numbers request i of requester r; the requester is in the high half, so a reply
// that reached the wrong requester is recognised.
func requestID(r int, i uint64) uint64 { return uint64(r)<<32 | i }

// requestSize varies the body between 24 bytes and 4 KB, so an echo that truncates or pads
// shows.
func requestSize(n uint64) int { return 24 + int(n%5)*1000 }

// requestBody is [id][sent time][fill…], requestSize(id) bytes.
func requestBody(n uint64, sent time.Duration) []byte {
	b := make([]byte, requestSize(n))
	binary.LittleEndian.PutUint64(b[0:8], n)
	binary.LittleEndian.PutUint64(b[8:16], uint64(sent))
	for i := 16; i < len(b); i++ {
		b[i] = fill(n, i)
	}
	return b
}

// replies records what the requesters got back.
type replies struct {
	mu       sync.Mutex
	count    map[uint64]int // request id → replies
	problems []string
	minRTT   time.Duration
	maxRTT   time.Duration
	received atomic.Int64
}

func (r *replies) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, msg)
}

func (r *replies) record(requester int, base time.Time, v []byte, at time.Time) {
	r.received.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(v) < 16 {
		r.problems = append(r.problems, fmt.Sprintf("requester %d: reply of %d bytes, shorter than any request", requester, len(v)))
		return
	}
	n := binary.LittleEndian.Uint64(v[0:8])
	if from := int(n >> 32); from != requester {
		r.problems = append(r.problems, fmt.Sprintf("requester %d got the reply to request %d of requester %d", requester, uint32(n), from))
		return
	}
	if len(v) != requestSize(n) {
		r.problems = append(r.problems, fmt.Sprintf("reply to request %#x: %d bytes, the request had %d", n, len(v), requestSize(n)))
		return
	}
	for i := 16; i < len(v); i++ {
		if v[i] != fill(n, i) {
			r.problems = append(r.problems, fmt.Sprintf("reply to request %#x: byte %d is %#x, the request had %#x", n, i, v[i], fill(n, i)))
			return
		}
	}
	r.count[n]++
	rtt := at.Sub(base) - time.Duration(binary.LittleEndian.Uint64(v[8:16]))
	if r.minRTT == 0 && r.maxRTT == 0 {
		r.minRTT, r.maxRTT = rtt, rtt
	}
	r.minRTT = min(r.minRTT, rtt)
	r.maxRTT = max(r.maxRTT, rtt)
}
