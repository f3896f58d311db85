package reference_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/reference"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// context is what other keys must say for a key's values to be judged on their own
// (exchange_type only applies with an exchange; idempotent producing pins max_in_flight).
var context = map[string]map[string]any{
	"kafka/max_in_flight":    {"idempotent": false},
	"rabbitmq/exchange_type": {"exchange": "bench"},
	"amqp10/routing":         {"address": "plain"},
	"nats/ack_batch":         {"ack": "batch"},
	"nats/ack_interval":      {"ack": "batch"},
	"rabbitmq/auth":          {"tls": map[string]any{"cert_file": "testdata/client.pem", "key_file": "testdata/client-key.pem"}},
	"amqp10/auth":            {"tls": map[string]any{"cert_file": "testdata/client.pem", "key_file": "testdata/client-key.pem"}},
}

// The allowed column is what Validate enforces: every listed value and both ends of a range
// pass, a value off the list and the first value past either end fail.
func TestAllowedValuesAreWhatValidateAccepts(t *testing.T) {
	checked := 0
	for _, b := range reference.Brokers() {
		for _, o := range b.Options {
			good, bad := probes(t, o)
			for _, c := range []struct {
				values []any
				refuse bool
			}{{good, false}, {bad, true}} {
				for _, v := range c.values {
					ps := parse(t, b.Name, with(base(b, o), o.Key, v))
					if got := hasProblem(ps, b.Name, o.Key, ""); got != c.refuse {
						t.Errorf("%s: %s: %v: refused %t, the reference says %t (allowed: %s): %v",
							b.Name, o.Key, v, got, c.refuse, o.Allowed(), ps)
					}
					checked++
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d values checked", checked)
	}
}

// probes returns values the reference says Validate accepts and values it says Validate
// refuses.
func probes(t *testing.T, o reference.Option) (good, bad []any) {
	for _, v := range o.Values {
		good = append(good, v)
	}
	if len(o.Values) > 0 {
		bad = append(bad, "no-such-value")
	}
	for i, end := range []string{o.Min, o.Max} {
		if end == "" {
			continue
		}
		step := []int64{-1, 1}[i] // just below the minimum, just above the maximum
		switch {
		case o.Type == "integer":
			n, err := strconv.ParseInt(end, 10, 64)
			if err != nil {
				t.Fatalf("%s: range end %q is not an integer", o.Key, end)
			}
			good = append(good, n)
			if n+step != 0 { // 0 means "unset": the driver's default replaces it
				bad = append(bad, n+step)
			}
		case o.Type == "duration":
			d, err := time.ParseDuration(end)
			if err != nil {
				t.Fatalf("%s: range end %q is not a duration", o.Key, end)
			}
			good = append(good, d.String())
			if d+time.Duration(step) != 0 {
				bad = append(bad, (d + time.Duration(step)).String())
			}
		case o.Type == "string" && strings.HasSuffix(end, " bytes"):
			n, err := strconv.Atoi(strings.TrimSuffix(end, " bytes"))
			if err != nil || i == 0 {
				t.Fatalf("%s: string range %q: only a maximum of N bytes is understood", o.Key, end)
			}
			good = append(good, strings.Repeat("a", n))
			bad = append(bad, strings.Repeat("a", n+1))
		default:
			t.Fatalf("%s: a range on a %s is not understood by this test", o.Key, o.Type)
		}
	}
	return good, bad
}

// The modes column never names a mode in which the driver refuses the key, and names only
// modes that exist.
func TestModesColumnMatchesValidate(t *testing.T) {
	for _, b := range reference.Brokers() {
		if b.ModeKey == "" {
			continue
		}
		var modes []string
		for _, m := range b.Modes {
			modes = append(modes, m.Name)
		}
		for _, o := range b.Options {
			for _, m := range o.Modes {
				if !slices.Contains(modes, m) {
					t.Errorf("%s: %s: mode %q does not exist (modes: %v)", b.Name, o.Key, m, modes)
				}
			}
			if o.Key == b.ModeKey {
				continue
			}
			for _, m := range modes {
				if len(o.Modes) > 0 && !slices.Contains(o.Modes, m) {
					continue
				}
				blk := with(base(b, o), b.ModeKey, m)
				if ps := parse(t, b.Name, with(blk, o.Key, sample(o))); hasProblem(ps, b.Name, o.Key, "") {
					t.Errorf("%s: %s in %s %s is refused, but the reference says it applies: %v", b.Name, o.Key, b.ModeKey, m, ps)
				}
			}
		}
	}
}

// base is the block a key's values are judged in: its first mode and its context.
func base(b reference.Broker, o reference.Option) map[string]any {
	blk := map[string]any{}
	if len(o.Modes) > 0 {
		blk[b.ModeKey] = o.Modes[0]
	}
	for k, v := range context[b.Name+"/"+o.Key] {
		blk[k] = v
	}
	return blk
}

// sample is a value of the option's type that its driver accepts on its own.
func sample(o reference.Option) any {
	switch {
	case len(o.Values) > 0:
		return o.Values[0]
	case o.Type == "integer" && o.Min != "":
		n, _ := strconv.Atoi(o.Min)
		return n
	case o.Type == "integer":
		return 1
	case o.Type == "duration" && o.Min != "":
		return o.Min
	case o.Type == "duration":
		return "1s"
	case o.Type == "boolean", o.Type == "boolean or block":
		return true
	case o.Type == "block":
		return map[string]any{}
	case strings.HasPrefix(o.Type, "map"):
		return map[string]any{"a": "b"}
	case strings.HasSuffix(o.Key, "_url"):
		return "http://127.0.0.1:15672"
	case strings.HasSuffix(o.Key, "ca_file"), strings.HasSuffix(o.Key, "cert_file"):
		return "testdata/ca.pem" // files are read at validate time: a real certificate
	case strings.HasSuffix(o.Key, "seed_file"), strings.HasSuffix(o.Key, "credentials_file"):
		return "testdata/user.nk" // an NKey seed made for this test
	case strings.HasSuffix(o.Key, "password_file"), strings.HasSuffix(o.Key, "secret_file"), strings.HasSuffix(o.Key, "token_file"):
		return "testdata/password" // read at validate time: a file that exists
	}
	return "x"
}

// with returns a copy of blk with the dotted key set to v.
func with(blk map[string]any, key string, v any) map[string]any {
	out := map[string]any{}
	for k, x := range blk {
		out[k] = x
	}
	head, rest, nested := strings.Cut(key, ".")
	if !nested {
		out[head] = v
		return out
	}
	inner, _ := out[head].(map[string]any)
	out[head] = with(inner, rest, v)
	return out
}

func block(key string, v any) map[string]any { return with(nil, key, v) }

// parse validates a minimal scenario around the broker block and returns its problems.
func parse(t *testing.T, broker string, blk map[string]any) []scenario.Problem {
	t.Helper()
	data, err := yaml.Marshal(map[string]any{
		"name":     "ref",
		"broker":   map[string]any{"type": broker, broker: blk},
		"workload": map[string]any{"destination": "ref-dest", "duration": "1s"},
		"matrix":   []any{map[string]any{"size": "1KB", "rate": 10}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = scenario.Parse("", data)
	var es *scenario.Errors
	switch {
	case err == nil:
		return nil
	case errors.As(err, &es):
		return es.Problems
	}
	t.Fatal(err)
	return nil
}

// hasProblem reports a problem on broker.<broker>.<key> whose message starts with prefix.
func hasProblem(ps []scenario.Problem, broker, key, prefix string) bool {
	for _, p := range ps {
		if p.Field == "broker."+broker+"."+key && strings.HasPrefix(p.Msg, prefix) {
			return true
		}
	}
	return false
}
