// Command kafkacluster holds the checks of scripts/brokers/cluster/kafka.sh for a three-node
// KRaft cluster, in Go with franz-go so that the readiness loop starts no JVM per try:
//
//	ready         one check: the metadata quorum has a leader and nodes 1..N as voters, each
//	              follower caught up with the leader within the last few seconds, and brokers
//	              1..N registered (unfenced); prints a summary, or why not and exits 1
//	probe         what a client does: a topic with N replicas and min.insync.replicas N-1
//	              created, a record produced with acks=all and read back, all N replicas in
//	              sync, the topic deleted; retried until -timeout
//	leader TOPIC  the node id of partition 0's leader (exit 1: no leader)
//	summary       one line: quorum leader and voters, brokers
//
// Node N is broker and controller N (node.id N), so an id is a node number.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// probeTopic is the probe's topic; a leftover of an interrupted probe is deleted first.
const probeTopic = "mqbench-cluster-probe"

// caughtUp: how recently a follower must have been caught up with the quorum leader. The
// leader appends a record at least every 500 ms (metadata.max.idle.interval.ms), so a live
// follower is caught up a few times a second and a dead one drops out after this.
const caughtUp = 3 * time.Second

func main() {
	seeds := flag.String("brokers", "127.0.0.1:9201,127.0.0.1:9202,127.0.0.1:9203", "the nodes' client addresses, comma separated")
	nodes := flag.Int("nodes", 3, "the cluster's node ids are 1..nodes")
	timeout := flag.Duration("timeout", 60*time.Second, "probe: give up after this; the other commands get 5 s")
	flag.Parse()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(*seeds, ",")...), kgo.DialTimeout(time.Second),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic(probeTopic))
	if err != nil {
		fail(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out string
	switch cmd := flag.Arg(0); {
	case cmd == "ready" && flag.NArg() == 1:
		out, err = ready(ctx, cl, adm, *nodes)
	case cmd == "summary" && flag.NArg() == 1:
		out = summary(ctx, cl, adm)
	case cmd == "leader" && flag.NArg() == 2:
		out, err = leader(ctx, adm, flag.Arg(1))
	case cmd == "probe" && flag.NArg() == 1:
		out, err = retry(*timeout, func(ctx context.Context) (string, error) { return probe(ctx, cl, adm, *nodes, *seeds) })
	default:
		fail(errors.New("usage: kafkacluster [-brokers H:P,...] [-nodes N] [-timeout D] ready|probe|summary|leader TOPIC"))
	}
	if err != nil {
		fail(err)
	}
	fmt.Println(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kafkacluster:", err)
	os.Exit(1)
}

// wantIDs: 1..n.
func wantIDs(n int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i + 1)
	}
	return ids
}

// quorum asks for the metadata log's Raft state (a broker forwards it to the active controller).
func quorum(ctx context.Context, cl *kgo.Client) (kmsg.DescribeQuorumResponseTopicPartition, error) {
	req := kmsg.NewDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return kmsg.DescribeQuorumResponseTopicPartition{}, fmt.Errorf("describe quorum: %w", err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return kmsg.DescribeQuorumResponseTopicPartition{}, errors.New("describe quorum: no partition in the answer")
	}
	q := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(q.ErrorCode); err != nil {
		return q, fmt.Errorf("describe quorum: %w", err)
	}
	return q, nil
}

func voterIDs(q kmsg.DescribeQuorumResponseTopicPartition) []int32 {
	var ids []int32
	for _, v := range q.CurrentVoters {
		ids = append(ids, v.ReplicaID)
	}
	slices.Sort(ids)
	return ids
}

func ready(ctx context.Context, cl *kgo.Client, adm *kadm.Client, n int) (string, error) {
	want := wantIDs(n)
	q, err := quorum(ctx, cl)
	if err != nil {
		return "", err
	}
	if q.LeaderID < 0 {
		return "", errors.New("the metadata quorum has no leader")
	}
	if v := voterIDs(q); !slices.Equal(v, want) {
		return "", fmt.Errorf("quorum voters %v, want %v", v, want)
	}
	// The leader's own entry has no fetch times; a follower's are the leader's wall clock.
	now := time.Now().UnixMilli()
	for _, v := range q.CurrentVoters {
		if v.ReplicaID != q.LeaderID && now-v.LastCaughtUpTimestamp > caughtUp.Milliseconds() {
			return "", fmt.Errorf("quorum leader %d: voter %d not caught up (log end %d, high watermark %d)",
				q.LeaderID, v.ReplicaID, v.LogEndOffset, q.HighWatermark)
		}
	}
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return "", fmt.Errorf("metadata: %w", err)
	}
	if b := md.Brokers.NodeIDs(); !slices.Equal(b, want) {
		return "", fmt.Errorf("quorum leader %d, voters caught up; brokers registered %v, want %v", q.LeaderID, b, want)
	}
	return fmt.Sprintf("quorum leader %d (epoch %d), voters %v caught up, brokers %v registered, cluster id %s",
		q.LeaderID, q.LeaderEpoch, voterIDs(q), md.Brokers.NodeIDs(), md.Cluster), nil
}

func summary(ctx context.Context, cl *kgo.Client, adm *kadm.Client) string {
	var parts []string
	if q, err := quorum(ctx, cl); err != nil {
		parts = append(parts, err.Error())
	} else {
		parts = append(parts, fmt.Sprintf("metadata quorum leader %d (epoch %d), voters %v", q.LeaderID, q.LeaderEpoch, voterIDs(q)))
	}
	if md, err := adm.BrokerMetadata(ctx); err != nil {
		parts = append(parts, "metadata: "+err.Error())
	} else {
		parts = append(parts, fmt.Sprintf("brokers %v", md.Brokers.NodeIDs()))
	}
	return strings.Join(parts, "; ")
}

func leader(ctx context.Context, adm *kadm.Client, topic string) (string, error) {
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return "", err
	}
	td, ok := tds[topic]
	switch {
	case !ok:
		return "", fmt.Errorf("topic %s does not exist", topic)
	case td.Err != nil:
		return "", fmt.Errorf("topic %s: %w", topic, td.Err)
	}
	p, ok := td.Partitions[0]
	if !ok || p.Leader < 0 {
		return "", fmt.Errorf("topic %s: partition 0 has no leader", topic)
	}
	return strconv.Itoa(int(p.Leader)), nil
}

// retry runs try (5 s each) until it succeeds or timeout passes: a young cluster may still
// refuse a fully replicated topic.
func retry(timeout time.Duration, try func(context.Context) (string, error)) (string, error) {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		c, cancelTry := context.WithTimeout(ctx, 5*time.Second)
		out, err := try(c)
		cancelTry()
		if err == nil {
			return fmt.Sprintf("%s (%.1fs)", out, time.Since(t0).Seconds()), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("probe failed for %v: %w", timeout, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func probe(ctx context.Context, cl *kgo.Client, adm *kadm.Client, n int, seeds string) (string, error) {
	if _, err := adm.DeleteTopic(ctx, probeTopic); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		return "", fmt.Errorf("delete leftover: %w", err)
	}
	isr := strconv.Itoa(max(1, n-1))
	if _, err := adm.CreateTopic(ctx, 1, int16(n), map[string]*string{"min.insync.replicas": &isr}, probeTopic); err != nil {
		return "", fmt.Errorf("create: %w", err)
	}
	defer func() { _, _ = adm.DeleteTopic(context.Background(), probeTopic) }()
	r, err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("probe")}).First()
	if err != nil {
		return "", fmt.Errorf("produce: %w", err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(seeds, ",")...), kgo.DialTimeout(time.Second),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{probeTopic: {0: kgo.NewOffset().At(r.Offset)}}))
	if err != nil {
		return "", err
	}
	defer c.Close()
	fs := c.PollFetches(ctx)
	if err := fs.Err0(); err != nil {
		return "", fmt.Errorf("read back: %w", err)
	}
	if got := fs.Records(); len(got) == 0 || string(got[0].Value) != "probe" {
		return "", fmt.Errorf("read back offset %d: %d records", r.Offset, len(got))
	}
	for {
		tds, err := adm.ListTopics(ctx, probeTopic)
		if err != nil {
			return "", err
		}
		if p := tds[probeTopic].Partitions[0]; len(p.ISR) == n {
			return fmt.Sprintf("topic with %d replicas created, a record produced with acks=all and read back, leader %d, in sync %v",
				n, p.Leader, p.ISR), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("in sync replicas: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
