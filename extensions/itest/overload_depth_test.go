package itest

import (
	"context"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The brokers' own depth for the overload test, read with their own tools or admin APIs, never
// through mqbench: what each holds for the run's consumers, waiting or delivered and not yet
// settled.

// rabbitReadyDepth: the queue's ready messages from a passive queue.declare, which the queue
// process answers at once. Not rabbitmqctl list_queues: each call boots an Erlang VM, ~0.4 s
// idle and ~6 s on a busy machine, so no read fell inside the 5 s drain (4 runs of 5 beside two
// busy loops); and a quorum queue's figures there are metrics refreshed every 5 s.
func rabbitReadyDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	conn, err := amqp091.Dial(url)
	if err != nil {
		return nil, nil, err
	}
	read := func(context.Context) (int64, error) {
		ch, err := conn.Channel()
		if err != nil {
			return 0, err
		}
		defer func() { _ = ch.Close() }()
		q, err := ch.QueueDeclarePassive(dest, true, false, false, false, nil)
		return int64(q.Messages), err
	}
	return read, func() { _ = conn.Close() }, nil
}

// kafkaDepth: the consumer group's lag (the topic's end offsets minus the group's committed
// offsets, what kafka-consumer-groups --describe shows), through the admin API.
func kafkaDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.TrimPrefix(url, "kafka://")))
	if err != nil {
		return nil, nil, err
	}
	adm := kadm.NewClient(cl)
	read := func(ctx context.Context) (int64, error) {
		commits, err := adm.FetchOffsetsForTopics(ctx, dest, dest)
		if err != nil {
			return 0, err
		}
		ends, err := adm.ListEndOffsets(ctx, dest)
		if err == nil {
			err = ends.Error()
		}
		if err != nil {
			return 0, err
		}
		var lag int64
		var missing error
		ends.Each(func(e kadm.ListedOffset) {
			c, ok := commits.Lookup(e.Topic, e.Partition)
			if !ok || c.Err != nil || c.At < 0 {
				missing = fmt.Errorf("group %s has no commit on %s/%d", dest, e.Topic, e.Partition)
				return
			}
			lag += e.Offset - c.At
		})
		return lag, missing
	}
	return read, cl.Close, nil
}

// jetStreamDepth: the stream's consumers' pending plus ack-pending messages (nats consumer
// info), through the JetStream API.
func jetStreamDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	read := func(ctx context.Context) (int64, error) {
		s, err := js.Stream(ctx, dest)
		if err != nil {
			return 0, err
		}
		var n int64
		found := false
		l := s.ListConsumers(ctx)
		for info := range l.Info() {
			n += int64(info.NumPending) + int64(info.NumAckPending)
			found = true
		}
		if err := l.Err(); err != nil {
			return 0, err
		}
		if !found {
			return 0, fmt.Errorf("stream %s has no consumer", dest)
		}
		return n, nil
	}
	return read, nc.Close, nil
}
