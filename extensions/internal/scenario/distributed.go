package scenario

import (
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// The distributed block: how a distributed run (MQ_RUNNERS=N) uses its destination.
//
// destination: per-runner (the default) gives runner i its own <destination>.r<i>, so every
// message is sent and received in one process. destination: shared sends every runner's
// messages to the one destination and has every consuming runner share its consumer group,
// queue or durable: the workload people scale out. Roles only make sense with a shared
// destination: producers: P makes runners 1..P produce only, consumers: C makes the next C
// runners consume only; the other runners do both. The number of runners is known only at
// run time, so the checks that need it are in plan.ReadDistributed.

// Destination modes of a distributed run.
const (
	DestinationPerRunner = "per-runner"
	DestinationShared    = "shared"
)

// Distributed is the scenario's distributed block.
type Distributed struct {
	Shared    bool // every runner publishes to and consumes from the one destination
	Producers int  // runners 1..Producers only produce (0: no producer-only runner)
	Consumers int  // runners Producers+1..Producers+Consumers only consume
}

type rawDistributed struct {
	Destination string `yaml:"destination"`
	Producers   int    `yaml:"producers"`
	Consumers   int    `yaml:"consumers"`
}

// maxRoleRunners bounds producers and consumers: no more than a run has runners.
const maxRoleRunners = runenv.MaxRunners

func (d *decoder) distributed(rd *rawDistributed, s *Scenario) Distributed {
	const p = "distributed"
	mode := d.oneOf(p+".destination", rd.Destination, DestinationPerRunner, DestinationPerRunner, DestinationShared)
	out := Distributed{
		Shared:    mode == DestinationShared,
		Producers: d.intIn(p+".producers", rd.Producers, 0, 0, maxRoleRunners),
		Consumers: d.intIn(p+".consumers", rd.Consumers, 0, 0, maxRoleRunners),
	}
	if !out.Shared {
		for _, k := range []string{"producers", "consumers"} {
			if d.usable(p+"."+k) && d.vals[p+"."+k].Value != "0" {
				d.errorf(p+"."+k, "roles need distributed.destination: shared (a runner that only produces to its own destination has nobody to receive)")
			}
		}
		return out
	}
	if len(s.Faults.Schedule) > 0 {
		d.errorf(p+".destination", "a shared destination cannot run with faults (each runner would kill the node for all of them)")
	}
	if s.Search != nil {
		d.errorf(p+".destination", "a shared destination cannot run a capacity search (search runs one k6 per step, not runners)")
	}
	if s.Workload.Pattern == PatternRequestReply {
		d.errorf(p+".destination", "a shared destination cannot run request-reply (a reply returns to its requester's own process)")
	}
	for i, c := range s.Cells {
		if c.Size > 0 && c.Size < header.Size {
			// The compact header has no runner and a µs clock too short for a shared clock.
			d.errorf(fmt.Sprintf("matrix[%d].size", i), "a shared destination needs payloads of at least %d bytes (the header that names each message's runner)", header.Size)
		}
	}
	return out
}
