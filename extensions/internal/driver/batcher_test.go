package driver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// recorder is a send function that keeps every batch and resolves its messages.
type recorder struct {
	mu      sync.Mutex
	batches [][]byte // the first value byte of each message, per batch
	gate    chan struct{}
}

func (r *recorder) send(batch []*Queued) {
	if r.gate != nil {
		<-r.gate
	}
	ids := make([]byte, len(batch))
	for i, q := range batch {
		ids[i] = q.Value[0]
		q.Resolve(nil)
	}
	r.mu.Lock()
	r.batches = append(r.batches, ids)
	r.mu.Unlock()
}

func TestBatcherLimitsAndOrder(t *testing.T) {
	cases := []struct {
		name     string
		limits   BatchLimits
		size     int // bytes per value
		maxBatch int // no batch may be longer
	}{
		{"one at a time", BatchLimits{Max: 1, Queue: 64}, 10, 1},
		{"count cap", BatchLimits{Max: 4, Queue: 64}, 10, 4},
		{"byte cap", BatchLimits{Max: 100, MaxBytes: 35, Queue: 64}, 10, 3},
		{"linger", BatchLimits{Max: 8, Linger: 20 * time.Millisecond, Queue: 64}, 10, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The send of the first batch waits, so the rest queue up behind it and are
			// gathered into full batches.
			r := &recorder{gate: make(chan struct{})}
			b := NewBatcher(tc.limits, errors.New("closed"), r.send)
			const n = 50
			acks := make([]Ack, n)
			for i := range n {
				v := make([]byte, tc.size)
				v[0] = byte(i)
				a, err := b.Add(context.Background(), Message{Value: v})
				if err != nil {
					t.Fatal(err)
				}
				acks[i] = a
			}
			close(r.gate)
			for i, a := range acks {
				if err := a.Wait(context.Background()); err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
			}
			b.Close()
			next, multi := byte(0), false
			for _, batch := range r.batches {
				if len(batch) > tc.maxBatch {
					t.Errorf("batch of %d, limit %d", len(batch), tc.maxBatch)
				}
				multi = multi || len(batch) > 1
				for _, id := range batch {
					if id != next {
						t.Fatalf("message %d sent where %d was due: %v", id, next, r.batches)
					}
					next++
				}
			}
			if next != n {
				t.Errorf("sent %d messages, want %d", next, n)
			}
			if tc.maxBatch > 1 && !multi {
				t.Errorf("no batch of more than one message: %v", r.batches)
			}
		})
	}
}

func TestBatcherLingerWaitsForMore(t *testing.T) {
	r := &recorder{}
	b := NewBatcher(BatchLimits{Max: 3, Linger: time.Second}, errors.New("closed"), r.send)
	defer b.Close()
	var acks []Ack
	for i := range 3 {
		a, err := b.Add(context.Background(), Message{Value: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
		time.Sleep(10 * time.Millisecond) // each arrives while the batch lingers
	}
	for _, a := range acks {
		if err := a.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.batches) != 1 || len(r.batches[0]) != 3 {
		t.Errorf("batches %v, want one of 3 (a full batch leaves before its linger ends)", r.batches)
	}
}

func TestBatcherCloseFailsWaiting(t *testing.T) {
	closedErr := errors.New("publisher closed")
	r := &recorder{gate: make(chan struct{})}
	b := NewBatcher(BatchLimits{Max: 2, Queue: 16}, closedErr, r.send)
	var acks []Ack
	for i := range 6 {
		a, err := b.Add(context.Background(), Message{Value: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
	}
	go func() { time.Sleep(20 * time.Millisecond); close(r.gate) }()
	b.Close()
	if _, err := b.Add(context.Background(), Message{Value: []byte{9}}); !errors.Is(err, closedErr) {
		t.Errorf("Add after Close: %v, want %v", err, closedErr)
	}
	sent, failed := 0, 0
	for _, a := range acks {
		switch err := a.Wait(context.Background()); {
		case err == nil:
			sent++
		case errors.Is(err, closedErr):
			failed++
		default:
			t.Errorf("unexpected outcome %v", err)
		}
	}
	// The batch in progress (the first message, taken before the others were queued, or
	// the first two) is sent; the rest fail.
	if sent < 1 || sent > 2 || sent+failed != 6 {
		t.Errorf("sent %d, failed %d of 6", sent, failed)
	}
}
