package scenario

import (
	"slices"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // the real registrations, when present
	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/redisdrv"
)

// The parser resolves broker types through the driver registry. The drivers register
// themselves from init (imported above through package all); this fills the gap for a
// driver package that does not register yet, with a Spec that only knows its options,
// which is all parsing needs. It never registers a name twice, so it keeps working once the
// real registrations exist.
func init() {
	stubs := map[string]driver.Spec{
		"nats":  {NewOptions: func() driver.Options { return &natsdrv.Options{} }, DefaultURL: "nats://127.0.0.1:4222"},
		"redis": {NewOptions: func() driver.Options { return &redisdrv.Options{} }, DefaultURL: "redis://127.0.0.1:6379"},
	}
	for name, spec := range stubs {
		if !slices.Contains(driver.Names(), name) {
			driver.Register(name, spec)
		}
	}
}
