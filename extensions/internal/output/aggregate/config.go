package aggregate

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

type config struct {
	addr, db, user, pass, retention string
	insecure                        bool
	pushInterval, window, grace     time.Duration
	dropTags                        map[string]bool
}

func defaultConfig() config {
	return config{
		addr: "http://127.0.0.1:8086", db: "k6",
		pushInterval: time.Second, window: time.Second, grace: time.Second,
		dropTags: map[string]bool{"vu": true, "iter": true, "url": true},
	}
}

// parseConfig applies, in k6's order, the environment and then the --out argument.
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
	tagList := func(v string) map[string]bool {
		m := map[string]bool{}
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				name, _, _ := strings.Cut(t, ":") // k6 allows name:type
				m[name] = true
			}
		}
		return m
	}
	if v := env["K6_INFLUXDB_ADDR"]; v != "" {
		c.addr = strings.TrimRight(v, "/")
	}
	if v := env["K6_INFLUXDB_DB"]; v != "" {
		c.db = v
	}
	if v, ok := env["K6_INFLUXDB_USERNAME"]; ok {
		c.user = v
	}
	if v, ok := env["K6_INFLUXDB_PASSWORD"]; ok {
		c.pass = v
	}
	if v := env["K6_INFLUXDB_RETENTION"]; v != "" {
		c.retention = v
	}
	if v := env["K6_INFLUXDB_INSECURE"]; v != "" {
		c.insecure, _ = strconv.ParseBool(v)
	}
	if v := env["K6_INFLUXDB_PUSH_INTERVAL"]; v != "" {
		c.pushInterval = dur("K6_INFLUXDB_PUSH_INTERVAL", v)
	}
	if v := env["K6_INFLUXDB_TAGS_AS_FIELDS"]; v != "" {
		c.dropTags = tagList(v)
	}
	if arg != "" {
		u, err := url.Parse(arg)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return c, fmt.Errorf("%s: want http(s)://[user:pass@]host:port/database, got %q", Name, arg)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return c, fmt.Errorf("%s: scheme %q: only http and https are supported", Name, u.Scheme)
		}
		c.addr = u.Scheme + "://" + u.Host
		if db := strings.Trim(u.Path, "/"); db != "" {
			c.db = db
		}
		if u.User != nil {
			c.user = u.User.Username()
			c.pass, _ = u.User.Password()
		}
		for k, vs := range u.Query() {
			v := vs[0]
			switch k {
			case "pushInterval":
				c.pushInterval = dur(k, v)
			case "window":
				c.window = dur(k, v)
			case "grace":
				c.grace = dur(k, v)
			case "retention":
				c.retention = v
			case "insecure":
				c.insecure = v == "true"
			case "tagsAsFields":
				c.dropTags = tagList(strings.Join(vs, ","))
			default:
				errs = append(errs, fmt.Errorf("unknown query parameter %q (known: pushInterval, window, grace, retention, insecure, tagsAsFields)", k))
			}
		}
	}
	if c.window > 0 && c.window%time.Millisecond != 0 {
		errs = append(errs, fmt.Errorf("window %s: must be a whole number of milliseconds", c.window))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("%s: %w", Name, err)
	}
	return c, nil
}
