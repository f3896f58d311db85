package results

import "testing"

func TestGrouped(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 5600: "5,600", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := grouped(in); got != want {
			t.Errorf("grouped(%d) = %q, want %q", in, got, want)
		}
	}
}
