package amqp10drv

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	amqp "github.com/Azure/go-amqp"
)

// Artemis answers management requests sent as messages to its management address: the
// resource and the attribute ride in application properties, the answer (a JSON array) comes
// back to the request's reply-to address. mqbench reads one attribute this way, the
// destination address's messageCount (what its queues hold: waiting plus delivered and not yet
// accepted), so the ledger can tell a backlog from a loss without Artemis's web console or
// JMX. The user needs Artemis's "manage" permission (the role `artemis create` makes has it).
const (
	artemisManagementAddress = "activemq.management"
	artemisResourceHeader    = "_AMQ_ResourceName"
	artemisAttributeHeader   = "_AMQ_Attribute"
	artemisSucceededHeader   = "_AMQ_OperationSucceeded"
)

// artemisMessageCount asks Artemis for the message count of the destination's address over the
// admin connection (ask).
func (d *amqpDriver) artemisMessageCount(ctx context.Context) (int64, error) {
	m, err := d.ask(ctx, artemisManagementAddress, &amqp.Message{
		ApplicationProperties: map[string]any{
			artemisResourceHeader:  "address." + d.queue,
			artemisAttributeHeader: "messageCount",
		},
		Value: "",
	}, nil)
	if err != nil {
		return 0, err
	}
	return parseArtemisCount(m[0])
}

// parseArtemisCount reads a management answer: a JSON array holding one number, as an AMQP
// value or a data section; a failed request carries its reason in the same place.
func parseArtemisCount(m *amqp.Message) (int64, error) {
	body := ""
	switch v := m.Value.(type) {
	case string:
		body = v
	case nil:
		body = string(m.GetData())
	default:
		return 0, fmt.Errorf("management answer: unexpected body %T", v)
	}
	if ok, isBool := m.ApplicationProperties[artemisSucceededHeader].(bool); isBool && !ok {
		return 0, fmt.Errorf("management request refused: %s", strings.TrimSpace(body))
	}
	var out []json.Number
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 1 {
		return 0, fmt.Errorf("management answer %q: want a JSON array of one number", body)
	}
	n, err := out[0].Int64()
	if err != nil || n < 0 {
		return 0, fmt.Errorf("management answer %q: not a message count", body)
	}
	return n, nil
}
