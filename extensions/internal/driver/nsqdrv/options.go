package nsqdrv

import (
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Options is the scenario's `broker.nsq` block.
type Options struct {
	// Channel is the NSQ channel the run's consumers read (they share its messages); default:
	// "mqbench-<run id>". Same naming rules as topics: 1–64 characters of . a-z A-Z 0-9 _ -,
	// optionally ending in #ephemeral.
	Channel string `yaml:"channel"`
	// MaxInFlight is how many messages nsqd may send each consumer before it finishes them
	// (the RDY count).
	MaxInFlight int `yaml:"max_in_flight"`
	// HTTPAddress is nsqd's HTTP API as host:port (topic and channel creation, deletion and
	// stats); default: the url's host, at the url's port + 1 (4151 for nsqd's usual 4150).
	HTTPAddress string `yaml:"http_address"`
	// Keep leaves a topic the run created in place after the run (the run's channel is still
	// deleted when the run created it).
	Keep bool `yaml:"keep"`
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.MaxInFlight == 0 {
		o.MaxInFlight = 200
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	if o.Channel != "" {
		if err := checkName("channel", o.Channel); err != nil {
			errs = append(errs, driver.FieldError{Field: "channel", Msg: err.Error()})
		}
	}
	if o.HTTPAddress != "" {
		if err := driver.CheckHostPort(o.HTTPAddress, "http_address"); err != nil {
			errs = append(errs, driver.FieldError{Field: "http_address", Msg: err.Error()})
		}
	}
	if o.MaxInFlight < 1 || o.MaxInFlight > 2500 {
		// 2500: nsqd's default --max-rdy-count.
		errs = append(errs, driver.FieldError{Field: "max_in_flight", Msg: "must be 1..2500 (nsqd's default --max-rdy-count), got " + strconv.Itoa(o.MaxInFlight)})
	}
	return errs
}

// AckMode says what publish latency waits for: nsqd's OK to PUB (the message is in the
// topic's memory queue or on disk, and copied to every channel).
func (o *Options) AckMode() driver.AckMode { return "pub-ok" }

// PromisesDelivery: nsqd keeps every acknowledged message for each channel until a consumer
// finishes it, so a lost message is a failure.
func (o *Options) PromisesDelivery() bool { return true }
