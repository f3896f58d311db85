package runner

// Option sets up a Runner. New takes what is known when the scenario loads; Connect takes
// what is known only when the run starts (a distributed runner's place comes from k6's
// execution segment in setup). Either way it applies before anything connects, so options
// have no order to respect.
type Option func(*Runner)

func (r *Runner) apply(opts []Option) {
	for _, o := range opts {
		o(r)
	}
}

// WithResultsDir says where the run's results go; interval logs are written there as cells
// run ("": none).
func WithResultsDir(dir string) Option { return func(r *Runner) { r.resultsDir = dir } }

// WithDestination gives the run another destination than the scenario's (a distributed
// runner's own).
func WithDestination(d string) Option { return func(r *Runner) { r.destination = d } }

// WithShared makes the runner one of a shared destination's runners (shared.go).
func WithShared(cfg SharedConfig) Option { return func(r *Runner) { r.joinShared(cfg) } }

// WithFaultCommandsAllowed lets the faults run their commands: the opt-in `k6 x mqbench run
// --allow-fault-commands` hands the module in its own process (MQ_ALLOW_FAULT_COMMANDS=1
// opts in without it).
func WithFaultCommandsAllowed() Option { return func(r *Runner) { r.faultCommands = true } }

// WithNativeBuckets has each cell's interval histograms also count in Prometheus's native
// buckets when schema says so at the cell's start (a Prometheus output is running); every
// Aggregate's trends then carry them (hist.Interval.Native).
func WithNativeBuckets(schema func() (int32, bool)) Option {
	return func(r *Runner) { r.nativeSchema = schema }
}
