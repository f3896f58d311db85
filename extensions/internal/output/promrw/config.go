package promrw

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

type config struct {
	url, user, pass string // url without user info, never printed with a password
	insecure        bool
	pushInterval    time.Duration
	classic         bool  // classic buckets (_bucket{le}) instead of native histograms
	schema          int32 // native schema (classicSchema with classic buckets)
	timeout         time.Duration
}

func defaultConfig() config {
	return config{url: "http://127.0.0.1:9090/api/v1/write", pushInterval: 5 * time.Second, schema: 5, timeout: 5 * time.Second}
}

// parseConfig applies, in k6's order, k6's own K6_PROMETHEUS_RW_* variables (the ones its
// experimental-prometheus-rw output reads, where they mean the same here) and then the --out
// argument: URL[?pushInterval=5s&histograms=native|classic&schema=5&insecure=true].
func parseConfig(env map[string]string, arg string) (config, error) {
	c := defaultConfig()
	var errs []error
	dur := func(name, v string) time.Duration {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s: %q is not a positive duration", name, v))
		}
		return d
	}
	setURL := func(name, v string) {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s: want http(s)://[user:password@]host:port/api/v1/write", name))
			return
		}
		if u.User != nil {
			c.user = u.User.Username()
			c.pass, _ = u.User.Password()
			u.User = nil
		}
		q := u.Query()
		u.RawQuery = ""
		c.url = u.String()
		for k, vs := range q {
			v := vs[0]
			switch k {
			case "pushInterval":
				c.pushInterval = dur(k, v)
			case "histograms":
				switch v {
				case "native":
					c.classic = false
				case "classic":
					c.classic = true
				default:
					errs = append(errs, fmt.Errorf("histograms: %q: want native or classic", v))
				}
			case "schema":
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > hist.MaxNativeSchema {
					errs = append(errs, fmt.Errorf("schema: %q: want 0 to %d (bucket growth 2^(2^-schema))", v, hist.MaxNativeSchema))
				}
				c.schema = int32(n)
			case "insecure":
				c.insecure = v == "true"
			default:
				errs = append(errs, fmt.Errorf("unknown query parameter %q (known: pushInterval, histograms, schema, insecure)", k))
			}
		}
	}
	if v := env["K6_PROMETHEUS_RW_SERVER_URL"]; v != "" {
		setURL("K6_PROMETHEUS_RW_SERVER_URL", v)
	}
	if v, ok := env["K6_PROMETHEUS_RW_USERNAME"]; ok {
		c.user = v
	}
	if v, ok := env["K6_PROMETHEUS_RW_PASSWORD"]; ok {
		c.pass = v
	}
	if v := env["K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY"]; v != "" {
		c.insecure, _ = strconv.ParseBool(v)
	}
	if v := env["K6_PROMETHEUS_RW_PUSH_INTERVAL"]; v != "" {
		c.pushInterval = dur("K6_PROMETHEUS_RW_PUSH_INTERVAL", v)
	}
	if arg != "" {
		setURL("--out "+Name, arg)
	}
	if c.classic {
		c.schema = classicSchema
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("%s: %w", Name, err)
	}
	return c, nil
}
