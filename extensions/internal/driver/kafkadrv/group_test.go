package kafkadrv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// The runners of a distributed run set up one consumer group at once. A runner whose
// commit of the start offsets comes after another runner's consumer joined is refused by the
// coordinator (UNKNOWN_MEMBER_ID): its Setup must go on, the group not counted as its own.
func TestStartCommitToJoinedGroup(t *testing.T) {
	url := kafkaURL(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	topic := unique("joined")
	d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: &Options{Topic: TopicOptions{Partitions: 2}}, RunID: fmt.Sprintf("joined-%d", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	kd := d.(*kafkaDriver)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Teardown(context.Background())
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx, func([]byte, time.Time) {}); err != nil {
		t.Fatal(err)
	}
	group := kd.groupOf(0)
	for {
		gs, err := kd.adm.DescribeGroups(ctx, group)
		if err == nil && len(gs[group].Members) > 0 && gs[group].State == "Stable" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the consumer never joined group %s: %v %v", group, gs, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	offsets, err := kd.startOffsets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if created, err := kd.commitStart(ctx, group, offsets); err != nil || created {
		t.Errorf("commit to a group with a member: created=%v err=%v, want false and no error", created, err)
	}
	fresh := fmt.Sprintf("mqbench-test-fresh-%d", time.Now().UnixNano())
	created, err := kd.commitStart(ctx, fresh, offsets)
	if err != nil || !created {
		t.Errorf("commit to a new group: created=%v err=%v, want true and no error", created, err)
	}
	if _, err := kd.adm.DeleteGroup(ctx, fresh); err != nil {
		t.Errorf("cleanup: deleting group %s: %v", fresh, err)
	}
}
