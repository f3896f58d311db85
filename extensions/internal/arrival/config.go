// Package arrival is mqbench's constant-arrival-rate executor: k6's constant-arrival-rate (the
// same options, ticks, execution segments, VU pool and dropped iterations), with each tick
// handed to the VU parked most recently and no goroutine switch between a tick's timer and
// its iteration (handoff.go). It registers itself with k6 under Type.
package arrival

import (
	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/lib/executor"
)

// Type is the executor's name in a k6 scenario's `executor` option.
const Type = "mqbench-arrival-rate"

func init() {
	lib.RegisterExecutorConfigType(Type, func(name string, rawJSON []byte) (lib.ExecutorConfig, error) {
		c := &Config{ConstantArrivalRateConfig: *executor.NewConstantArrivalRateConfig(name)}
		c.Type = Type
		err := lib.StrictJSONUnmarshal(rawJSON, c)
		return c, err
	})
}

// Config is a constant-arrival-rate scenario's options, run by this package's executor.
type Config struct {
	executor.ConstantArrivalRateConfig
}

var _ lib.ExecutorConfig = &Config{}

// NewExecutor returns the executor of one scenario.
func (c Config) NewExecutor(es *lib.ExecutionState, logger *logrus.Entry) (lib.Executor, error) {
	return &Executor{BaseExecutor: executor.NewBaseExecutor(&c, es, logger), config: c, es: es, logger: logger}, nil
}
