package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// A fault's command runs only when the environment opted in (the load refuses such a
// scenario first; this is the second lock, at the one place a command starts): finding 1.
func TestFaultCommandRunsOnlyWithOptIn(t *testing.T) {
	for _, tc := range []struct {
		allow string
		ran   bool
	}{{"", false}, {"0", false}, {"1", true}} {
		marker := filepath.Join(t.TempDir(), "ran")
		t.Setenv(scenario.AllowFaultCommandsEnv, tc.allow)
		r := &Runner{}
		ev := r.execFault(context.Background(), "kill", []string{"/bin/sh", "-c", "echo {node} > " + marker}, "n1", "n1", time.Now(), nil)
		_, err := os.Stat(marker)
		if ran := err == nil; ran != tc.ran {
			t.Errorf("%s=%q: command ran %v, want %v (event %+v)", scenario.AllowFaultCommandsEnv, tc.allow, ran, tc.ran, ev)
		}
		if !tc.ran && !strings.Contains(ev.Err, scenario.AllowFaultCommandsEnv) {
			t.Errorf("%s=%q: the refused fault's record says %q, want it to name %s", scenario.AllowFaultCommandsEnv, tc.allow, ev.Err, scenario.AllowFaultCommandsEnv)
		}
	}
}

// A node name the broker reports goes into a command's arguments like a scenario's: one that
// looks like an option or holds shell characters is refused and the fault recorded as not
// carried out (finding 16).
func TestPlacedNodeIsChecked(t *testing.T) {
	for _, tc := range []struct {
		asked, leader string
		followers     []string
		err           error
		node, errPart string
	}{
		{scenario.FaultLeader, "n2", []string{"n1"}, nil, "n2", ""},
		{scenario.FaultFollower, "n2", []string{"rabbit-1@localhost"}, nil, "rabbit-1@localhost", ""},
		{scenario.FaultLeader, "--help", nil, nil, "", "cannot go into a command"},
		{scenario.FaultFollower, "n1", []string{"a;id>x"}, nil, "", "cannot go into a command"},
		{scenario.FaultLeader, "n1\n", nil, nil, "", "cannot go into a command"},
		{scenario.FaultLeader, "", nil, nil, "", "no leader"},
		{scenario.FaultFollower, "n1", nil, nil, "", "no follower"},
		{scenario.FaultLeader, "", nil, errors.New("timeout"), "", "timeout"},
	} {
		node, err := placedNode(tc.asked, tc.leader, tc.followers, tc.err)
		if node != tc.node || (err == nil) != (tc.errPart == "") || err != nil && !strings.Contains(err.Error(), tc.errPart) {
			t.Errorf("%s of %q %q (%v): got %q, %v; want %q, an error saying %q", tc.asked, tc.leader, tc.followers, tc.err, node, err, tc.node, tc.errPart)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\n") {
			t.Errorf("%s of %q %q: error %q spans lines", tc.asked, tc.leader, tc.followers, err)
		}
	}
}
