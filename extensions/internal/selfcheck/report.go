package selfcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// write puts selfcheck.json and selfcheck.txt in the result's folder.
func write(r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "selfcheck.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.Dir, "selfcheck.txt"), []byte(Text(r)), 0o644)
}

// Text is the self-check's report: one line per check, PASS or FAIL, what was measured and
// what was expected, then the verdict.
func Text(r *Result) string {
	var b strings.Builder
	stall := ""
	if r.Stall != "" {
		stall = ", stall " + r.Stall
	}
	fmt.Fprintf(&b, "mqbench selfcheck: %s, %s at %d msg/s, delay %s%s\n", r.Broker, r.Size, r.Rate, r.Delay, stall)
	failed := 0
	for _, c := range r.Checks {
		verdict := "PASS"
		if !c.Pass {
			verdict, failed = "FAIL", failed+1
		}
		exp := fmt.Sprintf("expected %s ± %s", num(c.Expected), num(c.Hi-c.Expected))
		if c.Unit == "messages" {
			exp = "expected 0"
		} else if math.Abs((c.Expected-c.Lo)-(c.Hi-c.Expected)) > 1e-9 {
			exp = fmt.Sprintf("expected %s … %s", num(c.Lo), num(c.Hi))
		}
		fmt.Fprintf(&b, "  %s  %-44s %9s %-3s %-24s (%s)\n", verdict, c.Name, num(c.Measured), unit(c.Unit), exp, c.Why)
	}
	if failed == 0 {
		fmt.Fprintf(&b, "selfcheck passed: %d of %d checks (%.0f s)\n", len(r.Checks), len(r.Checks), r.TookS)
	} else {
		fmt.Fprintf(&b, "selfcheck FAILED: %d of %d checks (%.0f s)\n", failed, len(r.Checks), r.TookS)
	}
	fmt.Fprintf(&b, "results: %s\n", r.Dir)
	return b.String()
}

// num shows a figure with the digits that matter: none for counts, one decimal from 100 up.
func num(v float64) string {
	switch {
	case v != v:
		return "none"
	case math.Abs(v-math.Round(v)) < 1e-6:
		return fmt.Sprintf("%.0f", v)
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// unit is how a line shows a unit ("messages" is said by the check's name and note).
func unit(u string) string {
	if u == "messages" {
		return ""
	}
	return u
}
