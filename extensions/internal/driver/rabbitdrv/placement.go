package rabbitdrv

import (
	"context"
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
)

var _ driver.Topology = (*rabbitDriver)(nil)

// Placement asks the management API (management_url) where the queue lives: a quorum or
// stream queue's leader and its other members, a classic queue's node. Node names are
// Erlang's (rabbit-2@localhost: the project's clusters name node N "rabbit-N").
func (d *rabbitDriver) Placement(ctx context.Context) (leader string, followers []string, err error) {
	m := rabbitmgmt.New(d.opts.ManagementURL, d.uri.Host, d.uri.Username, d.uri.Password)
	leader, followers, err = m.Placement(ctx, d.queue)
	if err != nil {
		return "", nil, fmt.Errorf("rabbitmq: where queue %s lives: %s", d.queue, d.scrub(err.Error()))
	}
	return leader, followers, nil
}
