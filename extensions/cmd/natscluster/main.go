// Command natscluster is the last readiness check of scripts/brokers/cluster.sh for a NATS
// cluster. The monitor endpoints show routes and a JetStream meta leader, but not that a
// replicated stream can be placed on three peers and used; this does what a client would:
// create an R3 file stream, publish with an acknowledgement, read the message back, wait
// until every replica is current, delete the stream. It retries until -timeout, because a
// young cluster refuses placements until all peers have reported in.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The probe stream's name; a leftover of an interrupted probe is deleted before each try.
const stream, subject = "MQBENCH_CLUSTER_PROBE", "mqbench.cluster.probe"

func main() {
	servers := flag.String("servers", "nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303", "the nodes' client URLs, comma separated")
	replicas := flag.Int("replicas", 3, "replicas of the probe stream")
	timeout := flag.Duration("timeout", 30*time.Second, "give up after")
	flag.Parse()
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var err error
	for {
		var msg string
		if msg, err = probe(ctx, *servers, *replicas); err == nil {
			fmt.Printf("%s (%.1fs)\n", msg, time.Since(t0).Seconds())
			return
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(os.Stderr, "natscluster: R%d stream not usable after %v: %v\n", *replicas, *timeout, err)
			os.Exit(1)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func probe(ctx context.Context, servers string, replicas int) (string, error) {
	// Each try gets at most 5 s, so a hung request does not eat the whole budget.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nc, err := nats.Connect(servers, nats.Name("mqbench-cluster-probe"), nats.Timeout(2*time.Second))
	if err != nil {
		return "", err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return "", err
	}
	if err := js.DeleteStream(ctx, stream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return "", fmt.Errorf("delete leftover: %w", err)
	}
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: stream, Subjects: []string{subject}, Storage: jetstream.FileStorage, Replicas: replicas,
	})
	if err != nil {
		return "", fmt.Errorf("create: %w", err)
	}
	defer func() { _ = js.DeleteStream(context.Background(), stream) }()
	ack, err := js.Publish(ctx, subject, []byte("probe"))
	if err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	m, err := s.GetMsg(ctx, ack.Sequence)
	if err != nil || string(m.Data) != "probe" {
		return "", fmt.Errorf("read back seq %d: %v", ack.Sequence, err)
	}
	// Current replicas: the followers have applied the message too.
	for {
		info, err := s.Info(ctx)
		if err != nil {
			return "", fmt.Errorf("info: %w", err)
		}
		if c := info.Cluster; c != nil && c.Leader != "" && len(c.Replicas) == replicas-1 &&
			!slices.ContainsFunc(c.Replicas, func(p *jetstream.PeerInfo) bool { return !p.Current || p.Offline }) {
			var names []string
			for _, p := range c.Replicas {
				names = append(names, p.Name)
			}
			return fmt.Sprintf("R%d file stream created, 1 message acknowledged and read back, leader %s, replicas %s current",
				replicas, c.Leader, strings.Join(names, " ")), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("replicas not current: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
