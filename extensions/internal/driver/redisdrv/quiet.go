package redisdrv

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// go-redis logs every failed dial to stderr through a process-wide logger. mqbench reports a
// broker problem once, as one clear line (or as publish-error metrics mid-run), so the
// library's own log lines would only repeat it, and break the one-line contract.
func init() { redis.SetLogger(silent{}) }

type silent struct{}

func (silent) Printf(context.Context, string, ...interface{}) {}
