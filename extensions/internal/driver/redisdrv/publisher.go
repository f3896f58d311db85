package redisdrv

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// acked is the Ack of a send whose reply already arrived.
var acked = driver.Done(nil)

// pubsubPublisher sends PUBLISH and waits for the reply (the number of receivers), so the Ack
// is already resolved when Send returns. Redis has no message key: Message.Key is ignored.
type pubsubPublisher struct {
	c         *redis.Client
	channel   string
	closeOnce sync.Once
}

func (p *pubsubPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	if err := p.c.Publish(ctx, p.channel, m.Value).Err(); err != nil {
		return nil, err
	}
	return acked, nil
}

func (p *pubsubPublisher) Flush(context.Context) error { return nil }

func (p *pubsubPublisher) Close() error {
	p.closeOnce.Do(func() { p.c.Close() })
	return nil
}

// streamPublisher sends XADD key [MAXLEN ~ n] * d <payload> and waits for the entry id, so the
// Ack is already resolved when Send returns. Message.Key is ignored.
type streamPublisher struct {
	c    *redis.Client
	args redis.XAddArgs // reused: Send is serialised per publisher
	vals [2]any

	closeOnce sync.Once
}

func (p *streamPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	p.vals[0], p.vals[1] = field, m.Value
	p.args.Values = p.vals[:]
	err := p.c.XAdd(ctx, &p.args).Err()
	p.vals[1] = nil // do not keep the caller's buffer
	if err != nil {
		return nil, err
	}
	return acked, nil
}

func (p *streamPublisher) Flush(context.Context) error { return nil }

func (p *streamPublisher) Close() error {
	p.closeOnce.Do(func() { p.c.Close() })
	return nil
}
