package kafkadrv

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.Topology = (*kafkaDriver)(nil)

// Placement names partition 0's leader and its other replicas by broker id ("2"; the
// project's clusters number node N's broker N). A topic with several partitions has several
// leaders: a fault on "leader" takes partition 0's, which every message with key none or
// fixed goes to only when the topic has one partition.
func (d *kafkaDriver) Placement(ctx context.Context) (leader string, followers []string, err error) {
	tds, err := d.adm.ListTopics(ctx, d.topic)
	if err != nil {
		return "", nil, d.classify(err)
	}
	td, ok := tds[d.topic]
	switch {
	case !ok:
		return "", nil, fmt.Errorf("kafka: topic %s does not exist", d.topic)
	case td.Err != nil:
		return "", nil, fmt.Errorf("kafka: topic %s: %w", d.topic, td.Err)
	}
	p, ok := td.Partitions[0]
	if !ok {
		return "", nil, fmt.Errorf("kafka: topic %s has no partition 0", d.topic)
	}
	if p.Leader < 0 {
		return "", nil, errors.New("kafka: partition 0 has no leader right now")
	}
	for _, r := range p.Replicas {
		if r != p.Leader {
			followers = append(followers, strconv.Itoa(int(r)))
		}
	}
	return strconv.Itoa(int(p.Leader)), followers, nil
}
