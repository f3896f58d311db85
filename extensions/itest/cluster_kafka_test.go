package itest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The three-node Kafka (KRaft) cluster of scripts/brokers/cluster.sh: node N is broker and
// controller N (node.id N, so a partition leader's broker id is the node number), client port
// 9200+N, controller 9300+N, SASL 9400+N. Like the NATS cluster it runs in the shared state
// dir: start reuses a cluster a crashed run left, the cleanup stops it.
const kafkaFailoverTopic = "mqbench-failover"

var kafkaSeeds = []string{"127.0.0.1:9201", "127.0.0.1:9202", "127.0.0.1:9203"}

// A scenario whose faults kill the leader (cluster_faults_test.go).
func TestScenarioFaultsKafkaCluster(t *testing.T) {
	testScenarioFaults(t, "kafka", kafkaNode, []faultCase{{"cluster-kafka-safe", true, 2 * time.Second}})
}

// A topic with one partition, 3 replicas and min.insync.replicas 2; an idempotent producer
// (acks=all) keeps producing while partition 0's leader is SIGKILLed and restarted: every
// acknowledged record is in the partition exactly once, in order, and the 3 replicas are back
// in sync.
func TestKafkaClusterFailover(t *testing.T) {
	k6Binary(t) // runs with the other itests (make test), skips like them otherwise
	waitClusterTurn(t, "kafka", 22*time.Second)
	began := time.Now()
	t.Log(startCluster(t, "kafka"))
	checkKafkaLoopbackOnly(t)

	cl, err := kgo.NewClient(kgo.SeedBrokers(kafkaSeeds...), kgo.DefaultProduceTopic(kafkaFailoverTopic),
		kgo.RequiredAcks(kgo.AllISRAcks()), // idempotent writes are franz-go's default
		kgo.MaxBufferedRecords(100), kgo.UnknownTopicRetries(-1),
		// Refresh metadata quickly after an error, so the failover time is the cluster's.
		kgo.MetadataMinAge(250*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	checkKafkaFormed(t, ctx, cl, adm)

	// A crashed run's topic goes first (deletion is asynchronous on the brokers: retry the create).
	if _, err := adm.DeleteTopic(ctx, kafkaFailoverTopic); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Fatal(err)
	}
	minISR := "2"
	waitFor(t, "topic created", 30*time.Second, func() bool {
		_, err := adm.CreateTopic(ctx, 1, clusterSize, map[string]*string{"min.insync.replicas": &minISR}, kafkaFailoverTopic)
		return err == nil
	})
	t.Cleanup(func() { _, _ = adm.DeleteTopic(context.Background(), kafkaFailoverTopic) })
	part := waitISR(t, ctx, adm, 30*time.Second)

	p := startKafkaProducer(cl)
	t.Cleanup(func() { p.cancel(); p.stop() })
	waitFor(t, "1000 records acknowledged", 30*time.Second, func() bool { return p.count() >= 1000 })

	part = partition0(t, ctx, adm)
	node := int(part.Leader)
	if got := mustCluster(t, "leader", "kafka", kafkaFailoverTopic); got != strconv.Itoa(node) {
		t.Errorf("cluster.sh leader says node %q, metadata says %d", got, node)
	}
	quorumLeader := int32(-1)
	if q, err := kafkaQuorum(ctx, cl); err == nil {
		quorumLeader = q.LeaderID
	}
	before := p.count()
	killStart := time.Now()
	out := mustCluster(t, "kill", "kafka", strconv.Itoa(node))
	killed := time.Now()
	t.Logf("%s (leader of partition 0, replicas %v, after %d acks; metadata quorum leader %d; cluster.sh kill took %v)",
		out, part.Replicas, before, quorumLeader, killed.Sub(killStart).Round(time.Millisecond))

	var first time.Time
	waitFor(t, "an acknowledgement after the kill", time.Minute, func() bool { first = p.firstAfter(killed); return !first.IsZero() })
	var now kadm.PartitionDetail
	waitFor(t, "a new partition leader", 30*time.Second, func() bool {
		now = partition0(t, ctx, adm)
		return now.Leader >= 0 && int(now.Leader) != node
	})
	after := p.count()
	waitFor(t, "500 more acknowledgements under the new leader", 30*time.Second, func() bool { return p.count() >= after+500 })
	acked, errs := p.stop()
	if len(errs) > 0 {
		t.Errorf("%d records failed, first: %v", len(errs), errs[0])
	}
	t.Logf("failover: first record produced after the kill acknowledged %v after it; new leader %d, in sync %v; %d records acknowledged in all",
		first.Sub(killed).Round(time.Millisecond), now.Leader, now.ISR, acked)

	restart := time.Now()
	out = mustCluster(t, "start", "kafka", strconv.Itoa(node))
	t.Logf("cluster.sh start kafka %d (%v):\n%s", node, time.Since(restart).Round(100*time.Millisecond), out)
	part = waitISR(t, ctx, adm, time.Minute)
	t.Logf("partition 0 back to 3 in sync replicas %v %v after the restart began (leader %d)",
		part.ISR, time.Since(restart).Round(100*time.Millisecond), part.Leader)

	checkKafkaExactlyOnce(t, ctx, adm, acked)
	t.Logf("cluster.sh status kafka:\n%s", mustCluster(t, "status", "kafka"))
	t.Logf("test took %v", time.Since(began).Round(100*time.Millisecond))
}

// checkKafkaFormed: the test's own look at what cluster.sh waited for. Brokers 1..3 on their
// ports, and a metadata quorum with a leader and the 3 nodes as voters.
func checkKafkaFormed(t *testing.T, ctx context.Context, cl *kgo.Client, adm *kadm.Client) {
	t.Helper()
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var brokers []string
	for _, b := range md.Brokers {
		brokers = append(brokers, fmt.Sprintf("%d@%s:%d", b.NodeID, b.Host, b.Port))
	}
	want := []string{"1@127.0.0.1:9201", "2@127.0.0.1:9202", "3@127.0.0.1:9203"}
	if !slices.Equal(brokers, want) || md.Cluster == "" {
		t.Fatalf("brokers %v (want %v), cluster id %q", brokers, want, md.Cluster)
	}
	q, err := kafkaQuorum(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	var voters []int32
	for _, v := range q.CurrentVoters {
		voters = append(voters, v.ReplicaID)
	}
	slices.Sort(voters)
	if q.LeaderID < 1 || !slices.Equal(voters, []int32{1, 2, 3}) {
		t.Fatalf("metadata quorum: leader %d, voters %v", q.LeaderID, voters)
	}
	t.Logf("cluster %s: brokers %v, metadata quorum leader %d (epoch %d), voters %v", md.Cluster, brokers, q.LeaderID, q.LeaderEpoch, voters)
}

// kafkaQuorum: the Raft state of the metadata log (a broker forwards the request to the
// active controller).
func kafkaQuorum(ctx context.Context, cl *kgo.Client) (kmsg.DescribeQuorumResponseTopicPartition, error) {
	req := kmsg.NewDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return kmsg.DescribeQuorumResponseTopicPartition{}, fmt.Errorf("describe quorum: %v", err)
	}
	return resp.Topics[0].Partitions[0], nil
}

// checkKafkaLoopbackOnly: listeners.sh on every node, and each node's sockets are its three
// ports on 127.0.0.1 (no JMX or other port).
func checkKafkaLoopbackOnly(t *testing.T) {
	t.Helper()
	t.Logf("cluster.sh listeners kafka:\n%s", mustCluster(t, "listeners", "kafka"))
	checkNodeSockets(t, "kafka", func(n int) []int { return []int{9200 + n, 9300 + n, 9400 + n} })
}

func partition0(t *testing.T, ctx context.Context, adm *kadm.Client) kadm.PartitionDetail {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	tds, err := adm.ListTopics(c, kafkaFailoverTopic)
	if err != nil {
		return kadm.PartitionDetail{Leader: -1}
	}
	p, ok := tds[kafkaFailoverTopic].Partitions[0]
	if !ok {
		return kadm.PartitionDetail{Leader: -1}
	}
	return p
}

// waitISR waits until partition 0 has a leader and all 3 replicas in sync.
func waitISR(t *testing.T, ctx context.Context, adm *kadm.Client, timeout time.Duration) kadm.PartitionDetail {
	t.Helper()
	var p kadm.PartitionDetail
	waitFor(t, "3 in sync replicas", timeout, func() bool {
		p = partition0(t, ctx, adm)
		return p.Leader >= 0 && len(p.ISR) == clusterSize
	})
	return p
}

// checkKafkaExactlyOnce reads partition 0 from the start: records 0..n-1, each once, in order.
func checkKafkaExactlyOnce(t *testing.T, ctx context.Context, adm *kadm.Client, n int) {
	t.Helper()
	ends, err := adm.ListEndOffsets(ctx, kafkaFailoverTopic)
	if err != nil {
		t.Fatal(err)
	}
	end, ok := ends.Lookup(kafkaFailoverTopic, 0)
	if !ok || end.Err != nil {
		t.Fatalf("end offset of partition 0: %v", end.Err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(kafkaSeeds...), kgo.ConsumePartitions(
		map[string]map[int32]kgo.Offset{kafkaFailoverTopic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seen := make([]int, n)
	got, extra, outOfOrder, next := 0, 0, 0, int64(0)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for next < end.Offset && rctx.Err() == nil {
		fs := c.PollFetches(rctx)
		if err := fs.Err0(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			next = r.Offset + 1
			id, err := strconv.Atoi(string(r.Value))
			if err != nil || id < 0 || id >= n {
				extra++
				return
			}
			if id != got {
				outOfOrder++
			}
			got++
			seen[id]++
		})
	}
	var missing, twice []int
	for id, c := range seen {
		if c == 0 {
			missing = append(missing, id)
		} else if c > 1 {
			twice = append(twice, id)
		}
	}
	t.Logf("read back %d records (end offset %d) from the start", got, end.Offset)
	if len(missing) > 0 || len(twice) > 0 || extra > 0 || got != n || outOfOrder > 0 {
		t.Errorf("read %d of %d acknowledged: missing %v, more than once %v, %d unexpected, %d out of order",
			got, n, head(missing), head(twice), extra, outOfOrder)
	}
}

// kafkaProducer produces "0", "1", "2", ... to partition 0 asynchronously (at most 100
// buffered); franz-go retries every record until acknowledged, and the idempotent producer's
// sequence numbers let the brokers drop a retried batch they already have.
type kafkaProducer struct {
	mu     sync.Mutex
	acks   []kafkaAck // in acknowledgement order, which is production order (one partition)
	errs   []error
	quit   chan struct{}
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc // give up on what is buffered (a failed test's cleanup)
	cl     *kgo.Client
	once   sync.Once
}

// kafkaAck: when a record was handed to the client and when it was acknowledged.
type kafkaAck struct{ produced, acked time.Time }

func startKafkaProducer(cl *kgo.Client) *kafkaProducer {
	p := &kafkaProducer{quit: make(chan struct{}), done: make(chan struct{}), cl: cl}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(p.done)
		for id := 0; ; id++ {
			select {
			case <-p.quit:
				return
			default:
			}
			// Blocks while 100 records are buffered (during the failover, until it is over).
			at := time.Now()
			cl.Produce(p.ctx, &kgo.Record{Value: []byte(strconv.Itoa(id))}, func(_ *kgo.Record, err error) {
				p.mu.Lock()
				defer p.mu.Unlock()
				if err != nil {
					p.errs = append(p.errs, err)
					return
				}
				p.acks = append(p.acks, kafkaAck{at, time.Now()})
			})
		}
	}()
	return p
}

func (p *kafkaProducer) count() int { p.mu.Lock(); defer p.mu.Unlock(); return len(p.acks) }

// firstAfter: when the first record produced after t was acknowledged (zero: none yet). Not
// the first acknowledgement after t: the client may read a dead leader's last answers late.
func (p *kafkaProducer) firstAfter(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i, _ := slices.BinarySearchFunc(p.acks, t, func(a kafkaAck, t time.Time) int { return a.produced.Compare(t) }); i < len(p.acks) {
		return p.acks[i].acked
	}
	return time.Time{}
}

// stop: no new records; waits until every buffered one is acknowledged or failed.
func (p *kafkaProducer) stop() (acked int, errs []error) {
	p.once.Do(func() {
		close(p.quit)
		<-p.done
		ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
		defer cancel()
		if err := p.cl.Flush(ctx); err != nil {
			p.mu.Lock()
			p.errs = append(p.errs, fmt.Errorf("flush: %w", err))
			p.mu.Unlock()
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.acks), p.errs
}
