// Package floor is what the plain-client floor programs (cmd/natsfloor, cmd/mqttfloor) share:
// how a run's figures are printed for the bench sections, and the process's CPU time.
package floor

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Report writes result (a struct with json tags) to stdout: its JSON, or, when fields is not
// empty, the comma-separated fields it names, space-separated (for scripts).
func Report(result any, fields string) error {
	b, err := json.Marshal(result)
	if err != nil || fields == "" {
		_, _ = os.Stdout.Write(append(b, '\n'))
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var out []string
	for _, f := range strings.Split(fields, ",") {
		v, ok := m[f]
		if !ok {
			return fmt.Errorf("-fields: no field %q in the result", f)
		}
		if n, isNum := v.(float64); isNum {
			out = append(out, strconv.FormatFloat(n, 'f', -1, 64))
		} else {
			out = append(out, fmt.Sprint(v))
		}
	}
	_, err = fmt.Println(strings.Join(out, " "))
	return err
}

// CPUUsed is the process's CPU time so far (user + system): publisher and subscriber.
func CPUUsed() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
