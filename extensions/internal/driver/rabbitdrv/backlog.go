package rabbitdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BacklogReader = (*rabbitDriver)(nil)

// askAgain is the pause before a queue that did not say its depth is asked again.
const askAgain = 20 * time.Millisecond

// ReadBacklog is what the broker holds for the run's consumers now, for the runner's
// reconciliation at the end of a cell's drain: the ready messages of every subscription's
// queue, from a passive queue.declare on a fresh channel of the admin connection (its
// message_count is the queue's length when the queue answers: classic and quorum queues),
// plus what may be on its way to the consumers (consumerSet.window). The management API's
// messages_ready is not used: the broker refreshes it only every collect_statistics_interval
// (5 s by default), seconds stale at the freeze: at overload every message queued since its
// last refresh read as lost.
//
// A stream is not consumed destructively (each consumer reads from its own offset, and
// queue.declare-ok carries no figure for it): Unknown, so its losses are not reconciled.
func (d *rabbitDriver) ReadBacklog(ctx context.Context) (int64, error) {
	if d.opts.QueueType == "stream" {
		return driver.Unknown, nil
	}
	queues := make([]string, d.subs)
	for s := range queues {
		queues[s] = d.queueOf(s)
	}
	ready, err := d.readyNow(ctx, true, queues...)
	if err != nil {
		return driver.Unknown, err
	}
	// The windows are read after the broker's answer: what a consumer took meanwhile
	// shrinks its window, but arrives late and is held anyway (see consumerSet.window).
	return ready + d.consumers.window(), nil
}

// readyNow sums the queues' ready messages: message_count of a passive queue.declare on a
// fresh channel of the admin connection, the queue's own count when it answers. Classic and
// quorum queues count their consumers in the same answer, so one that counts none while the
// run's consumers are subscribed did not give its depth: RabbitMQ answers 0 messages and 0
// consumers for a quorum queue whose leader did not answer within 250 ms (busy at overload),
// and a stream's whole log and 0 consumers. It is asked again until ctx ends when wait, an
// error otherwise.
func (d *rabbitDriver) readyNow(ctx context.Context, wait bool, queues ...string) (int64, error) {
	type answer struct {
		ready int64
		err   error
	}
	// The AMQP calls take no context: a broker slow to answer is left behind at ctx's end
	// (the channel closes when the answer comes, or with the connection).
	done := make(chan answer, 1)
	go func() {
		var a answer
		a.err = d.withChannel(func(ch *amqp.Channel) error {
			for _, name := range queues {
				for {
					q, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
					if err != nil {
						return fmt.Errorf("rabbitmq: read the depth of queue %s: %w", name, err)
					}
					if q.Consumers > 0 || !d.consumers.attached(name) {
						a.ready += int64(q.Messages)
						break
					}
					if !wait || ctx.Err() != nil {
						return fmt.Errorf("rabbitmq: queue %s did not say its depth: it counts none of the run's consumers (a quorum queue whose leader did not answer within 250 ms, or a stream)", name)
					}
					select { // a broker that truly sees no consumer (one reconnecting) is not asked in a loop
					case <-ctx.Done():
					case <-time.After(askAgain):
					}
				}
			}
			return nil
		})
		done <- a
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return 0, errors.New(d.scrub(a.err.Error()))
		}
		return a.ready, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("rabbitmq: read the depth of queue %s: %w", queues[0], ctx.Err())
	}
}

// consumerSet is the run's subscription consumers (not the responders of request-reply).
type consumerSet struct {
	mu   sync.Mutex
	list []*consumer
}

func (s *consumerSet) add(c *consumer) {
	s.mu.Lock()
	s.list = append(s.list, c)
	s.mu.Unlock()
}

// attached says whether one of the run's consumers is subscribed to queue (started, not
// closed; one reconnecting counts too).
func (s *consumerSet) attached(queue string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.list {
		if c.queue == queue && c.subscribed() {
			return true
		}
	}
	return false
}

// window bounds what the broker has sent to the consumers that their callbacks have not
// seen yet: queue.declare-ok counts ready messages only, and a message sent to a consumer is
// unacknowledged, still the broker's (requeued if the consumer goes away), but sits in the
// client's buffer until its callback takes it. AMQP has no exact figure for it (the
// management API's messages_unacknowledged is as stale as messages_ready, and counts the
// delivered ones too), so each consumer with manual acknowledgements counts prefetch less
// the deliveries its callback took and has not acknowledged yet: the broker never has more
// than prefetch unacknowledged on its channel. The bound is exact when the window is full (a
// consumer that cannot keep up, the case that matters at overload) and otherwise above the
// truth by the unused part of the window, never below. With auto_ack the broker forgets what
// it sent: it holds none of it, and the consumer counts 0.
func (s *consumerSet) window() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, c := range s.list {
		n += c.window()
	}
	return n
}
