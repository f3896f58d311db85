package scenario

import (
	"os"
	"testing"
)

func BenchmarkParseMatrix(b *testing.B) {
	data, err := os.ReadFile(repoRoot() + "/scenarios/nats-latency-matrix.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Parse("nats-latency-matrix.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
