package redisdrv

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// checkURL: redis://, rediss:// or unix://, as go-redis parses it (host:port alone means
// redis://host:port).
func checkURL(raw string) error {
	if !strings.Contains(raw, "://") {
		raw = "redis://" + raw
	}
	scheme, _, _ := strings.Cut(raw, "://")
	if s := strings.ToLower(scheme); s != "unix" {
		if err := driver.CheckURLs(raw, "redis", "rediss"); err != nil {
			return err
		}
	}
	if _, err := redis.ParseURL(raw); err != nil {
		return fmt.Errorf("url %s: %s", redact.URL(raw), redact.Text(err.Error(), raw))
	}
	return nil
}

// checkKey: Redis keys and channels are binary-safe, but a name with control characters
// cannot be typed into redis-cli to look at what the run left; refuse those.
func checkKey(name string, _ driver.Options) error {
	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		return fmt.Errorf("key %q has a control character at byte %d", name, i)
	}
	return nil
}
