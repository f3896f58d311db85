package k8s

import (
	"reflect"
	"testing"
)

// A literal password in a broker url would reach the ConfigMap (finding 15); ${VAR} comes
// from a Secret and passes.
func TestLiteralSecrets(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{`broker: { type: nats, url: "nats://nats.mq:4222" }`, nil},
		{`broker: { type: nats, url: "nats://bench@nats.mq:4222" }`, nil},
		{`broker: { type: nats, url: "nats://bench:${NATS_PASSWORD}@nats.mq:4222" }`, nil},
		{`broker: { type: nats, url: "${BROKER_URL}" }`, nil},
		{`broker: { type: nats, url: "nats://bench:hunter2@nats.mq:4222" }`, []string{"broker.url"}},
		{`broker: { type: redis, url: "redis://:hunter2@redis.mq:6379/0" }`, []string{"broker.url"}},
		{`broker: { type: nats, url: "nats://a.mq:4222, nats://u:p@b.mq:4222" }`, []string{"broker.url"}},
		{`broker: { type: nats, url: "nats://u:${P}x@b.mq:4222" }`, []string{"broker.url"}},
		{`broker: { type: postgres, url: "postgres://u@pg.mq/db?sslmode=require&password=hunter2" }`, []string{"broker.url"}},
		{`broker: { type: postgres, url: "postgres://u@pg.mq/db?password=${PGPASS}" }`, nil},
		{`broker: { type: rabbitmq, url: "amqp://pod.mq", rabbitmq: { management_url: "http://admin:admin@mgmt.mq:15672" } }`, []string{"broker.rabbitmq.management_url"}},
	} {
		if got := LiteralSecrets([]byte(tc.yaml)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.yaml, got, tc.want)
		}
	}
}
