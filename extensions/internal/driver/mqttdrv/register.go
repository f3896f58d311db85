package mqttdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

// No MaxPayload: MQTT's packet limit (268,435,455 bytes) is far above the largest payload a
// scenario may ask for.
func init() {
	driver.Register("mqtt", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "mqtt://127.0.0.1:1883",
		CheckURL:         checkURL,
		CheckDestination: checkTopic,
		// A persistent session (clean_start false) keeps a subscription and queues its QoS 1
		// and 2 messages while its consumer is away; a clean session ends with the connection.
		Holds: func(o driver.Options) bool {
			m := o.(*Options)
			return !cleanStart(m) && subQoS(m) >= 1
		},
		// At QoS 1 and 2 the broker acknowledges each publish and owes every matching
		// subscription of QoS 1 or 2 the message, also with a clean session as long as the
		// consumer stays connected: a lost message is a failure. QoS 0 promises nothing.
		PromisesDelivery: func(o driver.Options) bool {
			m := o.(*Options)
			return qos(m) >= 1 && subQoS(m) >= 1
		},
		// Each subscription is its own shared-subscription group (or, with share false, its
		// own consumer), and every matching subscription receives every message.
		FanOut: func(driver.Options) bool { return true },
		// Without share, a subscription's consumers would each receive every message.
		SoleConsumer: func(o driver.Options) bool { return !shared(o.(*Options)) },
		// MQTT 5 user properties carry the stamp; 3.1.1 has no message headers.
		HeaderStamp: func(o driver.Options) bool { return o.(*Options).Protocol == v5 },
	})
}
