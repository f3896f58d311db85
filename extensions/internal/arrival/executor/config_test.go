package executor

import (
	"encoding/json"
	"strings"
	"testing"

	"go.k6.io/k6/v2/lib"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
)

// k6 decodes a scenario of Type into Config, strictly, with constant-arrival-rate's options.
func TestK6DecodesTheScenario(t *testing.T) {
	var o lib.Options
	raw := `{"scenarios": {"c1_publish": {"executor": "` + arrival.Type + `", "exec": "publish", "rate": 2000, "timeUnit": "1s",
		"duration": "30s", "preAllocatedVUs": 7, "maxVUs": 28, "gracefulStop": "2s"}}}`
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		t.Fatal(err)
	}
	c, ok := o.Scenarios["c1_publish"].(*Config)
	if !ok {
		t.Fatalf("decoded a %T, want *arrival.Config", o.Scenarios["c1_publish"])
	}
	if c.GetType() != arrival.Type || c.Rate.Int64 != 2000 || c.PreAllocatedVUs.Int64 != 7 || c.MaxVUs.Int64 != 28 || c.GetExec() != "publish" {
		t.Errorf("decoded %+v", c.ConstantArrivalRateConfig)
	}
	if errs := c.Validate(); len(errs) != 0 {
		t.Errorf("valid options refused: %v", errs)
	}

	bad := strings.Replace(raw, `"maxVUs"`, `"maxVU"`, 1)
	if err := json.Unmarshal([]byte(bad), &o); err == nil || !strings.Contains(err.Error(), "maxVU\"") {
		t.Errorf("an unknown option: %v, want an error naming it", err)
	}
}
