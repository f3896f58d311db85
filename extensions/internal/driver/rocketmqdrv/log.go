package rocketmqdrv

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

// rocketmq-client-go logs every connection, rebalance and route update to stdout through
// logrus (its Fatal level exits the process), which would bury k6's output. quietLog replaces
// it for the whole process; MQBENCH_ROCKETMQ_LOG=debug|info|warn|error sends the client's
// lines at that level and above to stderr instead, for debugging.
type quietLog struct{ min int }

var levels = map[string]int{"debug": 0, "info": 1, "warn": 2, "error": 3}

func (l quietLog) out(level int, name, msg string, fields map[string]any) {
	if l.min < 0 || level < l.min {
		return
	}
	fmt.Fprintf(os.Stderr, "rocketmq-client %s: %s %v\n", name, msg, fields)
}

func (l quietLog) Debug(msg string, f map[string]any)   { l.out(0, "debug", msg, f) }
func (l quietLog) Info(msg string, f map[string]any)    { l.out(1, "info", msg, f) }
func (l quietLog) Warning(msg string, f map[string]any) { l.out(2, "warn", msg, f) }
func (l quietLog) Error(msg string, f map[string]any)   { l.out(3, "error", msg, f) }
func (l quietLog) Fatal(msg string, f map[string]any)   { l.out(3, "fatal", msg, f) }
func (quietLog) Level(string)                           {}
func (quietLog) OutputPath(string) error                { return nil }

var _ rlog.Logger = quietLog{}

var setupOnce sync.Once

// setupClient silences the client's log and installs a panic handler. The handler matters:
// in v2.1.2 an async send whose answer times out calls back with the error and then
// dereferences the missing answer; the client runs its callbacks under
// primitive.WithRecover, which recovers only when PanicHandler is set, so without it that
// panic would end k6. The callback has resolved the ack with the error by then.
func setupClient() {
	setupOnce.Do(func() {
		min := -1
		if l, ok := levels[strings.ToLower(os.Getenv("MQBENCH_ROCKETMQ_LOG"))]; ok {
			min = l
		}
		rlog.SetLogger(quietLog{min: min})
		if primitive.PanicHandler == nil {
			primitive.PanicHandler = func(v any) {
				if min >= 0 {
					fmt.Fprintf(os.Stderr, "rocketmq-client: recovered panic: %v\n", v)
				}
			}
		}
	})
}
