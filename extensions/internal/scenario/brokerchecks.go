package scenario

// Checks that need the broker's own rules (the driver's), run once the whole file is read.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// checkDestination applies the broker's naming rules (Kafka topic characters, RabbitMQ's
// 255 bytes, NATS subjects without wildcards, …) once the options are known.
func (d *decoder) checkDestination(s *Scenario) {
	const p = "workload.destination"
	spec, err := driver.Lookup(s.Broker.Type)
	if err != nil || spec.CheckDestination == nil || !d.usable(p) || d.reported(p) || s.Workload.Destination == "" {
		return
	}
	opts, _ := s.Broker.Options.(driver.Options)
	if err := spec.CheckDestination(s.Workload.Destination, opts); err != nil {
		d.errorf(p, "%s", strings.TrimPrefix(err.Error(), s.Broker.Type+": "))
	}
}

// checkMessageLimit refuses cells whose payload exceeds what the broker's options let one
// message be (Kafka's batch_bytes), at the cell's size.
func (d *decoder) checkMessageLimit(s *Scenario) {
	spec, err := driver.Lookup(s.Broker.Type)
	opts, ok := s.Broker.Options.(driver.Options)
	if err != nil || spec.MaxPayload == nil || !ok || opts == nil {
		return
	}
	most, option := spec.MaxPayload(opts)
	for i, c := range s.Cells {
		p := fmt.Sprintf("matrix[%d].size", i)
		if c.Size > most && !d.reported(p) {
			d.errorf(p, "%s does not fit one message: broker.%s.%s allows payloads up to %d bytes; raise %s",
				c.SizeLabel, s.Broker.Type, option, most, option)
		}
	}
}

// fmtBytes prints a byte rate's size with a decimal unit, as link speeds are quoted: 6.7TB, 12.5GB.
func fmtBytes(v float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for v >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
}

// checkRequestReply refuses request-reply where the driver, as configured, has no responder
// (NATS JetStream's publish acknowledgement comes from the stream; a RabbitMQ stream would
// hand every request to every responder), and request-reply without responders.
func (d *decoder) checkRequestReply(s *Scenario) {
	const p = "workload.pattern"
	if s.Workload.Pattern != PatternRequestReply || d.reported(p) {
		return
	}
	if s.Workload.Consumers < 1 {
		d.errorf("workload.consumers", "request-reply needs at least one consumer: consumers are the responders")
	}
	if can, _ := capable(s.Broker, specRequestReply); !can && knownType(s.Broker) {
		d.errorf(p, "broker %s, as configured, cannot run request-reply (supported: nats with mode: core, rabbitmq with queue_type classic or quorum)", s.Broker.Type)
	}
	for i, c := range s.Cells {
		if c.Max {
			d.errorf(fmt.Sprintf("matrix[%d].rate", i), "request-reply runs at a fixed rate (open model: requests go out on schedule, whatever the replies do); rate: max is a one-way closed loop")
		}
	}
}

// checkStamp chooses where the stamp travels when the file does not say, and refuses a stamp
// in a header where the driver, as configured, has no message header to carry it, and in
// request-reply (responders echo the body, and only the body).
func (d *decoder) checkStamp(s *Scenario) {
	const p = "workload.payload.stamp"
	pl := &s.Workload.Payload
	recorded := recordedPayloads(s)
	if pl.Stamp == "" {
		// The user's own bytes (a file, a template, recorded payloads) go unchanged where the
		// broker has a header for the stamp; made-up bytes carry it, so a message is size bytes
		// on the wire, as the brokers' own benchmark tools send it.
		pl.Stamp = StampBody
		own := pl.Content == "file" || pl.Content == "template" || recorded > 0
		if can, _ := capable(s.Broker, specHeaderStamp); can && own && s.Workload.Pattern != PatternRequestReply {
			pl.Stamp = StampHeader
		}
	}
	if recorded > 0 && pl.Stamp != StampHeader {
		for i, c := range s.Cells {
			if c.Replay != nil && c.Replay.Summary.Payloads > 0 {
				d.errorf(fmt.Sprintf("matrix[%d].replay.file", i), "%d of its rows carry their payload, sent as recorded: the stamp must travel in a header (stamp: header works on %s)",
					c.Replay.Summary.Payloads, strings.Join(headerStampBrokers(), ", "))
			}
		}
	}
	if pl.Stamp != StampHeader || d.reported(p) {
		return
	}
	if can, known := capable(s.Broker, specHeaderStamp); !can && known {
		// A broker whose header depends on its options (MQTT 5 user properties, not 3.1.1)
		// is told apart from one that has none.
		with := ""
		if slices.Contains(headerStampBrokers(), s.Broker.Type) {
			with = " with these options"
		}
		d.errorf(p, "broker %s has no message header for mqbench's stamp%s (stamp: header works on %s); use stamp: body",
			s.Broker.Type, with, strings.Join(headerStampBrokers(), ", "))
	}
	if s.Workload.Pattern == PatternRequestReply {
		d.errorf(p, "request-reply responders echo the body alone; use stamp: body")
	}
}

// recordedPayloads counts the replayed rows that carry their own payload.
func recordedPayloads(s *Scenario) (n int64) {
	for _, c := range s.Cells {
		if c.Replay != nil {
			n += c.Replay.Summary.Payloads
		}
	}
	return n
}

// headerStampBrokers lists the broker types that can carry the stamp in a header.
func headerStampBrokers() []string {
	var out []string
	for _, n := range driver.Names() {
		if spec, _ := driver.Lookup(n); spec.HeaderStamp != nil {
			out = append(out, n)
		}
	}
	return out
}

// Capabilities a driver.Spec declares, for capable.
func specRequestReply(s driver.Spec) func(driver.Options) bool { return s.RequestReply }
func specHolds(s driver.Spec) func(driver.Options) bool        { return s.Holds }
func specFanOut(s driver.Spec) func(driver.Options) bool       { return s.FanOut }
func specSoleConsumer(s driver.Spec) func(driver.Options) bool { return s.SoleConsumer }
func specTopology(s driver.Spec) func(driver.Options) bool     { return s.Topology }
func specHeaderStamp(s driver.Spec) func(driver.Options) bool  { return s.HeaderStamp }

// capable reports whether the broker, with its decoded options, has the capability the Spec
// field picked by field declares (a nil field: never). known is false when the broker type is
// unknown or its options did not decode: that is reported elsewhere.
func capable(b Broker, field func(driver.Spec) func(driver.Options) bool) (can, known bool) {
	spec, err := driver.Lookup(b.Type)
	opts, ok := b.Options.(driver.Options)
	if err != nil || !ok || opts == nil {
		return false, false
	}
	return driver.Has(field(spec), opts), true
}

// knownType reports whether the broker type is registered.
func knownType(b Broker) bool {
	_, err := driver.Lookup(b.Type)
	return err == nil
}
