package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// summary.json says each threshold's status; one written without it (a merge, an older
// writer) gets it from ok and value: a threshold mqbench failed with no value is no data.
func TestThresholdStatusInJSON(t *testing.T) {
	v := 3.0
	for _, c := range []struct {
		th   Threshold
		want string
	}{
		{Threshold{Status: StatusNoData}, `"ok":false,"value":null,"status":"no data"`},
		{Threshold{EvaluatedBy: "mqbench"}, `"ok":false,"value":null,"status":"no data"`},
		{Threshold{EvaluatedBy: "k6"}, `"ok":false,"value":null,"status":"fail"`},
		{Threshold{OK: true, Value: &v}, `"ok":true,"value":3,"status":"pass"`},
		{Threshold{Value: &v}, `"ok":false,"value":3,"status":"fail"`},
	} {
		b, err := json.Marshal(c.th)
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%+v: %s, %v; want %s", c.th, b, err, c.want)
		}
		var back Threshold
		if err := json.Unmarshal(b, &back); err != nil || back.State() != c.th.State() {
			t.Errorf("%s: read back %+v, %v", b, back, err)
		}
	}
}
