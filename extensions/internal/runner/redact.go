package runner

import (
	"fmt"
	"net/url"
)

// RunIDString is the run id as written in results and tags.
func (r *Runner) RunIDString() string { return fmt.Sprintf("%08x", r.runID) }

// RedactURL removes credentials from a broker URL before it is printed or stored: secrets
// never reach the console, results or InfluxDB.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
