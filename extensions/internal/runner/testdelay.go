package runner

import "time"

// WithTestSendDelay makes every message wait d between its stamp and its send, spinning the
// CPU like a slower client would: a regression of known size for measuring the regression
// gate (the gate bench section, MQ_TEST_ONLY_SEND_DELAY). A real run never sets it.
func WithTestSendDelay(d time.Duration) Option {
	return func(r *Runner) { r.testSendDelay = d }
}

// spinFor busy-waits d: a sleep would wake tens of microseconds late, and by a varying
// amount, where the gate's measurement needs one known shift.
func spinFor(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
