package kafkadrv

import (
	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// checkURL: kafka://host:port[,host:port…] (the scheme is optional), no credentials, ports
// from 1 to 65535.
func checkURL(raw string) error {
	seeds, err := parseBrokers(raw)
	if err != nil {
		return err
	}
	for _, s := range seeds {
		if err := driver.CheckHostPort(s, "kafka: broker address"); err != nil {
			return err
		}
	}
	return nil
}

// checkTopic applies Kafka's topic naming rules (checkTopicName) before anything connects.
func checkTopic(name string, _ driver.Options) error { return checkTopicName(name) }

// recordOverhead is what a record batch of one record adds to the payload: the batch header
// (61 bytes), the record's own framing and a key (mqbench's keys are at most 16 bytes).
const recordOverhead = 128

// maxPayload (Spec.MaxPayload): a record batch (payload plus overhead) must fit batch_bytes.
func maxPayload(o driver.Options) (int, string) {
	return o.(*Options).BatchBytes - recordOverhead, "batch_bytes"
}
