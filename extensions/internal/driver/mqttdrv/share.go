package mqttdrv

import (
	"context"
	"fmt"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// shareWait is how long Setup waits for its probe message through a shared subscription.
const shareWait = 2 * time.Second

// checkShared proves the broker serves shared subscriptions before the run relies on them. A
// broker without them (RabbitMQ 3.x, the NATS server) takes SUBSCRIBE $share/<group>/<topic>
// as a plain filter that no topic matches, so every message of the run would be lost without
// a word. One message goes through a shared subscription of a topic of the probe's own
// beside the destination (nobody else subscribes to it); when it does not arrive, Setup fails
// with one line that says to set share: false.
func (d *mqttDriver) checkShared(ctx context.Context) error {
	topic := d.cfg.Destination + "/mqbench-share-probe"
	got := make(chan struct{}, 1)
	sp := d.params(roleID("probe", 1), true, func([]byte, string, time.Time) {
		select {
		case got <- struct{}{}:
		default:
		}
	})
	sub, err := d.dial(ctx, sp)
	if err != nil {
		return err
	}
	defer sub.disconnect()
	sctx, cancel := context.WithTimeout(ctx, d.opts.ConnectTimeout)
	defer cancel()
	if err := sub.subscribe(sctx, "$share/"+d.group(0)+"-probe/"+topic, 1); err != nil {
		return err
	}
	pp := d.params(roleID("probe", 2), true, nil)
	pp.qos, pp.retain, pp.msgExpiry = 1, false, 0
	pub, err := d.dial(ctx, pp)
	if err != nil {
		return err
	}
	defer pub.disconnect()
	a, err := pub.publish(ctx, topic, driver.Message{Value: []byte("mqbench shared-subscription probe")})
	if err == nil {
		err = a.Wait(sctx)
	}
	if err != nil {
		return err
	}
	t := time.NewTimer(shareWait)
	defer t.Stop()
	select {
	case <-got:
		return nil
	case <-t.C:
		return fmt.Errorf("mqtt: broker at %s delivered nothing through a shared subscription ($share/<group>/<topic>) within %v: it has none (RabbitMQ 3.x, the NATS server); set mqtt.share: false and run one consumer per subscription", d.ep.addr, shareWait)
	case <-ctx.Done():
		return ctx.Err()
	}
}
