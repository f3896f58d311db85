package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeEnvScenario writes a kafka scenario whose broker.url and workload.destination are
// given (a destination with $ but no reference goes to the description), in a temp folder,
// and returns its path.
func writeEnvScenario(t *testing.T, url, dest string) string {
	t.Helper()
	desc := "plain"
	if strings.Contains(dest, "$") && !strings.Contains(dest, "{") {
		desc, dest = dest, "d" // a topic name holds no $: the description shows it
	}
	doc := "name: envforms\ndescription: '" + desc + "'\nbroker: { type: kafka, url: '" + url + "' }\n" +
		"workload: { destination: '" + dest + "', duration: 1s }\nmatrix:\n  - { size: 64B, rate: 10 }\n"
	path := filepath.Join(t.TempDir(), "envforms.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 46 item 3: the shell's default and required forms expand; $NAME without braces and
// an unterminated ${ are invalid (111 naming the field), not literal text that failed later
// as an unreachable broker; $$ is a literal $.
func TestEnvForms(t *testing.T) {
	t.Setenv("MQB_T_URL", "kafka://127.0.0.1:9092")
	t.Setenv("MQB_T_EMPTY", "")
	for _, c := range []struct {
		name, url, dest   string
		wantURL, wantDest string
		wantDesc          string // "" for the default
		want              string // a problem's text; "" valid
	}{
		{name: "plain", url: "${MQB_T_URL}", dest: "d", wantURL: "kafka://127.0.0.1:9092", wantDest: "d"},
		{name: "default unused", url: "${MQB_T_URL:-kafka://h:1}", dest: "d", wantURL: "kafka://127.0.0.1:9092", wantDest: "d"},
		{name: "default for unset", url: "${MQB_T_UNSET:-kafka://h:1}", dest: "d", wantURL: "kafka://h:1", wantDest: "d"},
		{name: "default for empty", url: "${MQB_T_EMPTY:-kafka://h:1}", dest: "d", wantURL: "kafka://h:1", wantDest: "d"},
		{name: "dash default keeps empty", url: "${MQB_T_URL}", dest: "d${MQB_T_EMPTY-x}", wantURL: "kafka://127.0.0.1:9092", wantDest: "d"},
		{name: "dollar dollar", url: "${MQB_T_URL}", dest: "a$$b", wantURL: "kafka://127.0.0.1:9092", wantDest: "d", wantDesc: "a$b"},
		{name: "lone dollar", url: "${MQB_T_URL}", dest: "cost$5", wantURL: "kafka://127.0.0.1:9092", wantDest: "d", wantDesc: "cost$5"},
		{name: "required set", url: "${MQB_T_URL:?set KAFKA}", dest: "d", wantURL: "kafka://127.0.0.1:9092", wantDest: "d"},
		{name: "required unset", url: "${MQB_T_UNSET:?give the broker}", dest: "d",
			want: `broker.url: environment variable MQB_T_UNSET is not set or empty: "give the broker"`},
		{name: "no braces", url: "$MQB_T_URL", dest: "d",
			want: "broker.url: $MQB_T_URL is not expanded: write ${MQB_T_URL} (or $$ for a literal $)"},
		{name: "no braces in description", url: "${MQB_T_URL}", dest: "orders.$_STAGE",
			want: "description: $_STAGE is not expanded"},
		{name: "unterminated", url: "${MQB_T_URL}", dest: "orders.${BROKEN",
			want: "workload.destination: unterminated ${ at byte 7 of the value"},
		{name: "bad name", url: "${MQB_T_URL}", dest: "${1X}",
			want: "workload.destination: ${ at byte 0 of the value does not start with a variable name"},
		{name: "unsupported form", url: "${MQB_T_URL:=x}", dest: "d",
			want: "broker.url: ${MQB_T_URL at byte 0 of the value is followed by an unsupported form"},
		{name: "unset", url: "${MQB_T_UNSET}", dest: "d",
			want: "broker.url: environment variable MQB_T_UNSET is not set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load(writeEnvScenario(t, c.url, c.dest))
			if c.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if c.wantDesc == "" {
					c.wantDesc = "plain"
				}
				if s.Broker.URL != c.wantURL || s.Workload.Destination != c.wantDest || s.Description != c.wantDesc {
					t.Errorf("url %q destination %q description %q, want %q %q %q", s.Broker.URL, s.Workload.Destination, s.Description, c.wantURL, c.wantDest, c.wantDesc)
				}
				return
			}
			var es *Errors
			if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v\nwant a scenario error with %q", err, c.want)
			}
		})
	}
}

// Vars.Lookup (k6's -e values) comes before the process environment; NoEnv (validate
// --no-env) judges everything but the variables' values: an unset variable is no error and
// its field is not checked, a default still is.
func TestEnvVarsLookupAndNoEnv(t *testing.T) {
	t.Setenv("MQB_T_HOST", "from-process")
	lookup := func(name string) (string, bool) {
		if name == "MQB_T_HOST" {
			return "from-e", true
		}
		return os.LookupEnv(name)
	}
	s, err := LoadVars(writeEnvScenario(t, "kafka://${MQB_T_HOST}:9092", "d"), Vars{Lookup: lookup})
	if err != nil || s.Broker.URL != "kafka://from-e:9092" {
		t.Fatalf("LoadVars with a lookup: %+v, %v; want url kafka://from-e:9092", s, err)
	}
	for _, c := range []struct {
		name, url, dest, want string
	}{
		{name: "unset url, scheme unchecked", url: "${MQB_T_UNSET_URL}", dest: "d"},
		{name: "unset required", url: "${MQB_T_UNSET_URL:?the broker}", dest: "d"},
		{name: "set variable ignored", url: "${MQB_T_HOST}", dest: "d"},
		{name: "default still checked", url: "${MQB_T_UNSET_URL:-ftp://h:1}", dest: "d", want: "broker.url: url scheme"},
		{name: "other fields still checked", url: "${MQB_T_UNSET_URL}", dest: "$STAGE", want: "description: $STAGE is not expanded"},
		{name: "secret rule still applies", url: "${MQB_T_UNSET_URL}", dest: "d.${MQB_T_TOKEN:-x}", want: "workload.destination: ${MQB_T_TOKEN} looks like a secret"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadVars(writeEnvScenario(t, c.url, c.dest), Vars{NoEnv: true})
			if c.want == "" {
				if err != nil {
					t.Fatalf("LoadVars --no-env: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("LoadVars --no-env: %v\nwant a scenario error with %q", err, c.want)
			}
		})
	}
}
