package itest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// testJavaReadsTheDistributions: HdrHistogram's Java reference implementation (the jar that
// comes with Kafka, which make test installs) decodes a run's .hdr file and its .hlog
// interval log (intervals merged) to exactly the buckets and counts mqbench recorded: the
// files are HdrHistogram's formats, not merely something our own reader accepts.
func testJavaReadsTheDistributions(t *testing.T, r run) {
	jars, _ := filepath.Glob(filepath.Join(repoRoot(t), ".cache", "brokers", "kafka", "lib", "HdrHistogram-*.jar"))
	if _, err := exec.LookPath("java"); err != nil || len(jars) == 0 {
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatalf("java or Kafka's HdrHistogram jar missing (scripts/brokers/start.sh kafka installs it): %v %v", err, jars)
		}
		t.Skip("java or HdrHistogram jar not available")
	}
	src := filepath.Join(repoRoot(t), "extensions", "itest", "testdata", "java", "HdrCheck.java")
	for _, kind := range []string{"e2e", "publish"} {
		hdrFile := filepath.Join(r.resultsDir, "hdr", "c1."+kind+".hdr")
		hlogFile := filepath.Join(r.resultsDir, "hlog", "c1."+kind+".hlog")
		out, err := exec.Command("java", "-cp", jars[0], src, hdrFile, hlogFile).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: java: %v\n%s", kind, err, out)
		}
		b, err := os.ReadFile(hdrFile)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hist.DecodeV2(bytes.TrimSpace(b))
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		fmt.Fprintf(&want, "count=%d\n", h.Count())
		for _, bk := range h.Buckets() {
			fmt.Fprintf(&want, "%d %d\n", bk[0], bk[1])
		}
		// Java prints the .hdr histogram, then the merged interval log: both must be it.
		parts := strings.SplitAfterN(string(out), "\nhlog(", 2)
		if len(parts) != 2 {
			t.Fatalf("%s: unexpected Java output:\n%s", kind, out)
		}
		fromHdr := strings.TrimPrefix(strings.TrimSuffix(parts[0], "hlog("), "hdr ")
		fromLog := parts[1][strings.Index(parts[1], " ")+1:]
		if fromHdr != want.String() {
			t.Errorf("%s: Java decodes the .hdr file differently from Go:\nJava:\n%s\nGo:\n%s", kind, fromHdr, want.String())
		}
		if fromLog != want.String() {
			t.Errorf("%s: Java's merged .hlog intervals differ from the whole distribution:\nJava:\n%s\nGo:\n%s", kind, fromLog, want.String())
		}
		t.Logf("%s: Java reads %d buckets, %d values, identical to Go's", kind, len(h.Buckets()), h.Count())
	}
}
