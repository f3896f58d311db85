package runenv

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) Getenv { return func(k string) string { return m[k] } }

// A run folder's name reads back as the second it was made in, suffixed or not, in either case.
func TestStampRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 999, time.FixedZone("CET", 3600))
	want := at.UTC().Truncate(time.Second)
	for _, tc := range []struct{ name, folder string }{
		{"plain", Stamp(at)},
		{"second run of the second", Stamp(at) + "-2"},
		{"k8s run id case", strings.ToLower(Stamp(at))},
	} {
		got, err := ParseStamp(tc.folder)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: ParseStamp(%q) = %v, %v; want %v", tc.name, tc.folder, got, err, want)
		}
	}
	if s := Stamp(at); s != "20260102T020405Z" {
		t.Errorf("Stamp = %s, want 20260102T020405Z (UTC)", s)
	}
}

func TestParseStampRefuses(t *testing.T) {
	for _, bad := range []string{"", "latest", "20260102T020405", "20260102T020405Z-1", "20260102T020405Z-02", "20260102T020405Z-x", "2026-01-02"} {
		if _, err := ParseStamp(bad); err == nil || !strings.Contains(err.Error(), "run folder") {
			t.Errorf("ParseStamp(%q): %v, want an error naming the run folder", bad, err)
		}
	}
}

// A shard folder's name reads back as its runner and count; nothing else reads as one.
func TestShardNameRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		i, n int
		ok   bool
	}{
		{ShardName(2, 3), 2, 3, true},
		{ShardName(1000, 1000), 1000, 1000, true},
		{"runner-1-of-", 0, 0, false},
		{"runner-a-of-2", 0, 0, false},
		{"runner-1-of-2/", 0, 0, false},
		{"20260102T030405Z", 0, 0, false},
	} {
		i, n, ok := ParseShardName(tc.name)
		if i != tc.i || n != tc.n || ok != tc.ok {
			t.Errorf("ParseShardName(%q) = %d, %d, %v; want %d, %d, %v", tc.name, i, n, ok, tc.i, tc.n, tc.ok)
		}
	}
}

func TestLayout(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct{ got, want string }{
		{RunDir("r", "scn", at), "r/scn/20260102T030405Z"},
		{ScenarioDir("r", "scn"), "r/scn"},
		{ShardDir("r", "scn", "run-1", 2, 3), "r/scn/run-1/runner-2-of-3"},
		{Root(env(nil)), "results"},
		{Root(env(map[string]string{Results: "/x"})), "/x"},
		{Entry(Results, "/x"), "MQ_RESULTS=/x"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// Unset variables give their defaults; bad values are errors naming the variable and value.
func TestGetters(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars map[string]string
		read func(Getenv) (any, error)
		want any
		err  string // "" : no error
	}{
		{"runners unset", nil, func(g Getenv) (any, error) { return RunnerCount(g) }, 0, ""},
		{"runners", map[string]string{Runners: " 3 "}, func(g Getenv) (any, error) { return RunnerCount(g) }, 3, ""},
		{"runners zero", map[string]string{Runners: "0"}, func(g Getenv) (any, error) { return RunnerCount(g) }, 0, `MQ_RUNNERS="0": expected a number of runners from 1 to 1000`},
		{"runners word", map[string]string{Runners: "three"}, func(g Getenv) (any, error) { return RunnerCount(g) }, 0, `MQ_RUNNERS="three"`},
		{"run id", map[string]string{RunID: "run-1"}, func(g Getenv) (any, error) { return SharedRunID(g) }, "run-1", ""},
		{"run id missing", nil, func(g Getenv) (any, error) { return SharedRunID(g) }, "", `MQ_RUN_ID="": a distributed run needs one id`},
		{"run id slash", map[string]string{RunID: "a/b"}, func(g Getenv) (any, error) { return SharedRunID(g) }, "a/b", `MQ_RUN_ID="a/b"`},
		{"samples unset", nil, func(g Getenv) (any, error) { return OneOf(g, Samples, "aggregated", "raw") }, "", ""},
		{"samples raw", map[string]string{Samples: "raw"}, func(g Getenv) (any, error) { return OneOf(g, Samples, "aggregated", "raw") }, "raw", ""},
		{"samples bad", map[string]string{Samples: "all"}, func(g Getenv) (any, error) { return OneOf(g, Samples, "aggregated", "raw") }, "", `MQ_SAMPLES="all": expected aggregated or raw`},
		{"slack unset", nil, func(g Getenv) (any, error) { d, _, err := Duration(g, StartSlack, "5s", false); return d, err }, time.Duration(0), ""},
		{"slack", map[string]string{StartSlack: "2s"}, func(g Getenv) (any, error) { d, _, err := Duration(g, StartSlack, "5s", false); return d, err }, 2 * time.Second, ""},
		{"slack negative", map[string]string{StartSlack: "-2s"}, func(g Getenv) (any, error) { d, _, err := Duration(g, StartSlack, "5s", false); return d, err }, time.Duration(0), `MQ_START_SLACK="-2s": expected a duration like 5s`},
		{"skew negative", map[string]string{TestOnlyClockSkew: "-1.5s"}, func(g Getenv) (any, error) { d, _, err := Duration(g, TestOnlyClockSkew, "-1.5s", true); return d, err }, -1500 * time.Millisecond, ""},
		{"delay bad", map[string]string{TestOnlySendDelay: "70"}, func(g Getenv) (any, error) { d, _, err := Duration(g, TestOnlySendDelay, "70us", false); return d, err }, time.Duration(0), `MQ_TEST_ONLY_SEND_DELAY="70": expected a duration like 70us`},
		{"flag", map[string]string{AllowFaultCommands: "1"}, func(g Getenv) (any, error) { return Flag(g, AllowFaultCommands), nil }, true, ""},
		{"flag yes is not 1", map[string]string{AllowFaultCommands: "yes"}, func(g Getenv) (any, error) { return Flag(g, AllowFaultCommands), nil }, false, ""},
		{"clock", map[string]string{ClockRef: " h:1 "}, func(g Getenv) (any, error) { return ClockAddr(g), nil }, "h:1", ""},
	} {
		got, err := tc.read(env(tc.vars))
		var e *Error
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err) || !errors.As(err, &e)):
			t.Errorf("%s: error %v, want one starting %q", tc.name, err, tc.err)
		case got != tc.want:
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestProgressEvery(t *testing.T) {
	for _, tc := range []struct {
		v        string
		terminal bool
		want     time.Duration
	}{
		{"", false, DefaultProgressEvery},
		{"", true, 0},
		{"off", false, 0},
		{"0", false, 0},
		{"5s", true, 5 * time.Second},
		{"50ms", false, DefaultProgressEvery},
		{"soon", false, DefaultProgressEvery},
	} {
		if got := ProgressEvery(env(map[string]string{Progress: tc.v}), tc.terminal); got != tc.want {
			t.Errorf("%s=%q terminal %v: %v, want %v", Progress, tc.v, tc.terminal, got, tc.want)
		}
	}
}

// Every variable of the contract is in the table, once, under the prefix.
func TestVarsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range Vars {
		if !strings.HasPrefix(v.Name, Prefix) || seen[v.Name] || v.Default == "" || v.Meaning == "" {
			t.Errorf("%+v: a name under %s, once, with a default and a meaning", v, Prefix)
		}
		seen[v.Name] = true
	}
	for _, n := range []string{Scenario, Results, Samples, Progress, K6Progress, AllowFaultCommands, Runners, RunID, StartSlack, ClockRef, TestOnlyClockSkew, TestOnlySendDelay} {
		if !seen[n] {
			t.Errorf("%s is not in Vars", n)
		}
	}
}
