// Package executor is mqbench's arrival-rate executor inside k6: k6's constant-arrival-rate
// (the same options, ticks, execution segments, VU pool and dropped iterations) with its
// ticks handed to VUs by arrival.Handoff. It registers itself with k6 under arrival.Type.
package executor

import (
	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/lib/executor"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
)

func init() {
	lib.RegisterExecutorConfigType(arrival.Type, func(name string, rawJSON []byte) (lib.ExecutorConfig, error) {
		c := &Config{ConstantArrivalRateConfig: *executor.NewConstantArrivalRateConfig(name)}
		c.Type = arrival.Type
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
	return &Executor{BaseExecutor: executor.NewBaseExecutor(&c, es, logger), config: c, es: es}, nil
}
