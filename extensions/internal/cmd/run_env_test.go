package cmd

import (
	"bytes"
	"os"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/script"
	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/cmd/state"
)

// The run's environment defaults: the user's value always wins; k6's web dashboard, when on,
// listens on loopback only and gets mqbench's layout, written where it can read it.
func TestEnvDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want map[string]string // "" = must stay unset
	}{
		{"no dashboard", map[string]string{}, map[string]string{"K6_NO_USAGE_REPORT": "true", "K6_WEB_DASHBOARD_HOST": "", webDashboardConfig: ""}},
		{"dashboard", map[string]string{"K6_WEB_DASHBOARD": "true"}, map[string]string{"K6_WEB_DASHBOARD_HOST": "127.0.0.1", "K6_WEB_DASHBOARD_TAGS": "stat"}},
		{"the user's values win", map[string]string{"K6_WEB_DASHBOARD": "1", "K6_WEB_DASHBOARD_HOST": "10.0.0.7", "K6_WEB_DASHBOARD_TAGS": "group", webDashboardConfig: "mine.json", "K6_NO_USAGE_REPORT": "false"},
			map[string]string{"K6_WEB_DASHBOARD_HOST": "10.0.0.7", "K6_WEB_DASHBOARD_TAGS": "group", webDashboardConfig: "mine.json", "K6_NO_USAGE_REPORT": "false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := &state.GlobalState{Env: tc.env, Logger: logrus.New()}
			setEnvDefaults(gs)
			for k, v := range tc.want {
				if got, set := gs.Env[k]; v == "" && set || v != "" && got != v {
					t.Errorf("%s = %q (set %v), want %q", k, got, set, v)
				}
			}
			if tc.name == "dashboard" {
				b, err := os.ReadFile(gs.Env[webDashboardConfig])
				if err != nil || !bytes.Equal(b, script.WebDashboard) {
					t.Errorf("%s = %q: not mqbench's layout (%v)", webDashboardConfig, gs.Env[webDashboardConfig], err)
				}
			}
		})
	}
}
