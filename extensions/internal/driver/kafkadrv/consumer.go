package kafkadrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// codecNames are the batch compression codecs by their attribute value (kgo
// RecordAttrs.CompressionType).
var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// commitTimeout bounds one synchronous commit (commit: manual-sync).
const commitTimeout = 10 * time.Second

// consumer is one group member: its own franz-go client, created by Start, and one goroutine
// that polls it and calls deliver for every record. Nothing is spawned per record.
type consumer struct {
	d     *kafkaDriver
	id    int
	group string // the subscription's consumer group

	mu      sync.Mutex
	cl      *kgo.Client
	started bool
	closed  atomic.Bool

	ready     chan struct{} // closed once the group assigned this member and positions are exact
	readyOnce sync.Once
	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the poll goroutine returned
	closeOnce sync.Once

	codecs  [len(codecNames)]atomic.Int64
	other   atomic.Int64 // records with a codec value this driver does not know
	errs    atomic.Int64
	lastErr atomic.Pointer[error]
}

func (c *consumer) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

// Start creates the member's client, which joins the group, and begins polling. It returns
// once the group assigned this member its partitions (possibly none: partitions bound how
// many members receive anything) and their fetch positions are exact offsets, so every
// record produced after Start returns is delivered.
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	switch {
	case c.closed.Load():
		c.mu.Unlock()
		return errors.New("kafka: consumer closed")
	case c.started:
		c.mu.Unlock()
		return errors.New("kafka: consumer already started")
	}
	d := c.d
	o := d.opts.Consumer
	start := kgo.NewOffset().AtEnd()
	if o.Start == "earliest" {
		start = kgo.NewOffset().AtStart()
	}
	manual := o.Commit == "manual-sync"
	copts := []kgo.Opt{
		kgo.ConsumerGroup(c.group),
		kgo.ConsumeTopics(d.topic),
		kgo.ConsumeStartOffset(start),
		kgo.ConsumeResetOffset(start),
		kgo.FetchMaxWait(o.FetchMaxWait),
		kgo.FetchMinBytes(int32(o.FetchMinBytes)),
		kgo.HeartbeatInterval(heartbeatInterval),
		kgo.SessionTimeout(sessionTimeout),
		// Eager (stop-the-world) rebalancing: a joining member's first assignment already
		// holds its partitions, so its Start returns with the group settled. With the
		// cooperative default it would return after an empty first round, while its
		// partitions still move over in a second one.
		kgo.Balancers(kgo.StickyBalancer()),
		kgo.OnPartitionsAssigned(c.onAssigned),
		kgo.AdjustFetchOffsetsFn(c.adjustOffsets),
	}
	if !manual {
		copts = append(copts, kgo.AutoCommitInterval(o.CommitInterval))
	}
	if manual {
		copts = append(copts,
			kgo.DisableAutoCommit(),
			// Rebalances happen between polled batches, after their commit; the final revoke
			// (leaving) commits whatever was polled.
			kgo.BlockRebalanceOnPoll(),
			kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, _ map[string][]int32) {
				c.commit(ctx, cl)
			}),
		)
	}
	cl, err := kgo.NewClient(d.clientOpts(fmt.Sprintf("mqbench-sub-%d", c.id), copts...)...)
	if err != nil {
		c.mu.Unlock()
		return fmt.Errorf("kafka: consumer client: %w", err)
	}
	c.cl = cl
	c.started = true
	c.mu.Unlock()

	go c.run(cl, deliver, manual)

	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-c.ready:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = fmt.Errorf("no partition assignment from group %s within %v", c.group, readyTimeout)
	case <-c.stop:
		err = errors.New("closed")
	}
	if last := c.lastErr.Load(); last != nil {
		err = fmt.Errorf("%w (last fetch error: %s)", err, d.scrub((*last).Error()))
	}
	c.Close()
	return fmt.Errorf("kafka: consumer %d did not join group %s on topic %s: %w", c.id, c.group, d.topic, err)
}

// onAssigned runs after every join, with the partitions newly assigned to this member. With
// none, this member is ready at once; otherwise adjustOffsets marks it ready.
func (c *consumer) onAssigned(_ context.Context, _ *kgo.Client, assigned map[string][]int32) {
	n := 0
	for _, ps := range assigned {
		n += len(ps)
	}
	if n == 0 {
		c.markReady()
	}
}

// adjustOffsets runs once the committed offsets of newly assigned partitions were fetched and
// before the member fetches from them. A partition without a commit (a group this run did not
// create, or a partition added later) would otherwise be positioned by a separate, later
// ListOffsets ("latest" = whatever the end is then); here it gets the exact end offset of
// this moment instead, so nothing produced from now on is skipped.
func (c *consumer) adjustOffsets(ctx context.Context, offsets map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	if c.d.opts.Consumer.Start == "latest" {
		var need []string
		for t, ps := range offsets {
			for _, o := range ps {
				if o.EpochOffset().Offset < 0 {
					need = append(need, t)
					break
				}
			}
		}
		if len(need) > 0 {
			c.mu.Lock()
			cl := c.cl
			c.mu.Unlock()
			ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, need...)
			if err == nil {
				err = ends.Error()
			}
			if err != nil {
				// Returning the error makes franz-go rejoin and try again.
				c.noteErr(err)
				return nil, err
			}
			for t, ps := range offsets {
				for p, o := range ps {
					if o.EpochOffset().Offset >= 0 {
						continue
					}
					if e, ok := ends.Lookup(t, p); ok {
						ps[p] = kgo.NewOffset().At(e.Offset)
					}
				}
			}
		}
	}
	c.markReady()
	return offsets, nil
}

func (c *consumer) noteErr(err error) {
	c.errs.Add(1)
	c.lastErr.Store(&err)
}

// run polls until Close. receivedAt is taken once per poll: every record of a poll arrived
// together, and time spent in deliver for earlier records must not count as latency of later
// ones.
func (c *consumer) run(cl *kgo.Client, deliver driver.Delivery, manual bool) {
	defer close(c.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var rs driver.Restamper
	for {
		fetches := cl.PollFetches(ctx)
		now := time.Now()
		if fetches.IsClientClosed() || ctx.Err() != nil {
			if manual {
				cl.AllowRebalance()
			}
			return
		}
		fetches.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.Canceled) {
				c.noteErr(err)
			}
		})
		fetches.EachRecord(func(r *kgo.Record) {
			if ct := r.Attrs.CompressionType(); int(ct) < len(codecNames) {
				c.codecs[ct].Add(1)
			} else {
				c.other.Add(1)
			}
			if !c.closed.Load() {
				deliver(rs.Join(stampOf(r), r.Value), now)
			}
		})
		if manual {
			c.commit(ctx, cl)
			cl.AllowRebalance()
		}
	}
}

// stampOf returns the record's stamp header (payload.stamp: header), nil when it has none.
func stampOf(r *kgo.Record) []byte {
	for _, h := range r.Headers {
		if h.Key == driver.StampHeader {
			return h.Value
		}
	}
	return nil
}

// commit synchronously commits what was polled (commit: manual-sync).
func (c *consumer) commit(ctx context.Context, cl *kgo.Client) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	if err := cl.CommitUncommittedOffsets(cctx); err != nil {
		c.noteErr(err)
	}
}

// Codecs counts the received records by the compression codec of the record batch they
// arrived in, as the broker stored it ("none", "gzip", "snappy", "lz4", "zstd"). franz-go
// sends a batch uncompressed when compressing did not make it smaller (random payloads).
func (c *consumer) Codecs() map[string]int64 {
	m := map[string]int64{}
	for i := range c.codecs {
		if n := c.codecs[i].Load(); n > 0 {
			m[codecNames[i]] = n
		}
	}
	if n := c.other.Load(); n > 0 {
		m["unknown"] = n
	}
	return m
}

// Errors returns how many fetch or commit errors the consumer saw (franz-go retries them).
func (c *consumer) Errors() int64 { return c.errs.Load() }

// Close stops polling (no delivery happens after Close returns), leaves the group (with
// commit: auto franz-go commits what was polled; manual-sync commits in the revoke) and closes
// the client. Idempotent; bounded against a dead broker.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed.Store(true)
		close(c.stop)
		cl, started := c.cl, c.started
		c.mu.Unlock()
		if !started {
			return
		}
		t := time.NewTimer(closeWait)
		select {
		case <-c.done:
		case <-t.C:
		}
		t.Stop()
		done := make(chan struct{})
		go func() {
			defer close(done)
			lctx, cancel := context.WithTimeout(context.Background(), closeWait)
			defer cancel()
			_ = cl.LeaveGroupContext(lctx)
			cl.Close()
		}()
		t = time.NewTimer(closeWait + time.Second)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	})
	return nil
}
