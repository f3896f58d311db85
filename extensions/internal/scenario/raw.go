package scenario

import (
	"time"

	"gopkg.in/yaml.v3"
)

// The raw* types mirror the file format key for key; the strict decoder fills them and
// records which keys were written, so validation can tell "producers: 0" from a missing
// producers and point at the line of each value. Scenario/Cell are then built from them.

type rawScenario struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Broker      rawBroker      `yaml:"broker"`
	Workload    rawWorkload    `yaml:"workload"`
	Matrix      []rawCell      `yaml:"matrix"`
	Thresholds  yaml.Node      `yaml:"thresholds"` // walked by thresholds(): keys are metric names
	Validity    rawValidity    `yaml:"validity"`
	Samples     string         `yaml:"samples"`
	Faults      rawFaults      `yaml:"faults"`
	Search      rawSearch      `yaml:"search"`
	Distributed rawDistributed `yaml:"distributed"`
}

type rawBroker struct {
	Type string `yaml:"type"`
	URL  string `yaml:"url"`
	// Blocks catches every other key; the one named like Type is that driver's options.
	Blocks map[string]*yaml.Node `yaml:",inline"`
}

type rawPayload struct {
	Content string `yaml:"content"`
	// Compressibility of random content: "50%" or 0.5.
	Compressibility yaml.Node `yaml:"compressibility"`
	File            string    `yaml:"file"`
	Key             yaml.Node `yaml:"key"` // a name, or a distribution's mapping (keys.go)
	// Stamp: where mqbench's stamp travels, body or header.
	Stamp string `yaml:"stamp"`
}

type rawWorkload struct {
	Destination   string        `yaml:"destination"`
	Pattern       string        `yaml:"pattern"`
	Destinations  int           `yaml:"destinations"`
	Subscriptions int           `yaml:"subscriptions"`
	Producers     int           `yaml:"producers"`
	Consumers     int           `yaml:"consumers"`
	Payload       rawPayload    `yaml:"payload"`
	Batch         int           `yaml:"batch"`
	Warmup        time.Duration `yaml:"warmup"`
	Duration      time.Duration `yaml:"duration"`
	Drain         time.Duration `yaml:"drain"`
	VUs           int           `yaml:"vus"`
	MaxVUs        int           `yaml:"max_vus"`
	Pacing        string        `yaml:"pacing"`
	ConsumerRate  int           `yaml:"consumer_rate"` // messages per second per consumer connection
}

type rawCell struct {
	Name       string        `yaml:"name"`
	Size       yaml.Node     `yaml:"size"` // integer bytes or "1KB": parsed by parseSize
	Rate       yaml.Node     `yaml:"rate"` // messages per second, or "max": parsed by parseRate
	StartRate  int           `yaml:"start_rate"`
	Stages     []rawStage    `yaml:"stages"`   // a rate profile in place of rate (stages.go)
	Steps      rawSteps      `yaml:"steps"`    // a step ladder, in place of rate (shorthands.go)
	Burst      rawBurst      `yaml:"burst"`    // periodic bursts on the cell's rate (shorthands.go)
	Replay     rawReplay     `yaml:"replay"`   // a recording replayed, in place of size and rate (replaycell.go)
	Messages   int           `yaml:"messages"` // measured messages: sets duration = messages / rate
	Inflight   int           `yaml:"inflight"` // rate: max only: unacknowledged messages per producer
	Backlog    int           `yaml:"backlog"`  // consumers held back until this many messages wait
	Producers  int           `yaml:"producers"`
	Consumers  int           `yaml:"consumers"`
	Batch      int           `yaml:"batch"`
	Warmup     time.Duration `yaml:"warmup"`
	Duration   time.Duration `yaml:"duration"`
	Drain      time.Duration `yaml:"drain"`
	VUs        int           `yaml:"vus"`
	MaxVUs     int           `yaml:"max_vus"`
	Thresholds yaml.Node     `yaml:"thresholds"`

	ConsumerRate int `yaml:"consumer_rate"` // overrides the workload's cap per consumer (msg/s)
}

type rawValidity struct {
	AllowDroppedIterations bool `yaml:"allow_dropped_iterations"`
}

type rawFaults struct {
	Kill     string     `yaml:"kill"`  // command template: how to kill a node
	Start    string     `yaml:"start"` // command template: how to start it again
	Schedule []rawFault `yaml:"schedule"`
}

type rawFault struct {
	At           time.Duration `yaml:"at"`
	Node         string        `yaml:"node"`
	RestartAfter time.Duration `yaml:"restart_after"`
}

type rawSearch struct {
	MaxRate       int           `yaml:"max_rate"`
	Step          time.Duration `yaml:"step"`
	Precision     yaml.Node     `yaml:"precision"` // "5%": parsed by percent
	Confirm       time.Duration `yaml:"confirm"`
	BacklogGrowth yaml.Node     `yaml:"backlog_growth"`
}
