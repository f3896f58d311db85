package scenario

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/header"
)

// MaxSize is the largest payload a scenario may ask for. Beyond it most brokers reject the
// message by default (NATS max_payload, Kafka message.max.bytes) and the generator would spend
// its time copying memory rather than measuring the broker.
const MaxSize = 64 << 20

// Size units are binary: KB = KiB = 1024 bytes, MB = MiB = 1024×1024 bytes (GB/GiB are
// accepted only so "1GB" gets the "exceeds the limit" message rather than "unknown unit").
// Broker benchmarks, including the ones this project reproduces, mean 1024 when they write
// "1KB", and a decimal reading would silently shift every cell by 2.4 %.
var sizeUnits = map[string]int64{
	"B":   1,
	"KB":  1 << 10,
	"KIB": 1 << 10,
	"MB":  1 << 20,
	"MIB": 1 << 20,
	"GB":  1 << 30,
	"GIB": 1 << 30,
}

var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)$`)

// parseSize reads a cell's size: an integer byte count or a number with a unit ("256B",
// "1.5KB", "64KiB"). It returns the byte count and the label to show in reports (the text as
// written, or "<n>B" for a bare integer), or a message saying what is wrong.
func parseSize(n *yaml.Node) (bytes int, label string, msg string) {
	const want = "expected a size like 256B, 1KB, 1.5MB or a byte count"
	if n.Kind != yaml.ScalarNode {
		return 0, "", fmt.Sprintf("%s, got %s", want, describe(n))
	}
	var b int64
	switch n.ShortTag() {
	case intTag:
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil && !strings.HasPrefix(n.Value, "-") {
			return 0, "", fmt.Sprintf("%sB exceeds the 64MB limit", n.Value)
		}
		if err != nil || v < 0 {
			return 0, "", fmt.Sprintf("%s, got %s", want, describe(n))
		}
		b, label = v, strconv.FormatInt(v, 10)+"B"
	case strTag:
		label = strings.TrimSpace(n.Value)
		m := sizeRE.FindStringSubmatch(label)
		if m == nil {
			return 0, "", fmt.Sprintf("%s, got %q", want, n.Value)
		}
		unit, ok := sizeUnits[strings.ToUpper(m[2])]
		if !ok {
			return 0, "", fmt.Sprintf("unknown size unit %q in %q (valid: B, KB, KiB, MB, MiB; binary, 1KB = 1024 bytes)", m[2], n.Value)
		}
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil { // only a range error is possible after the regexp
			return 0, "", fmt.Sprintf("%s exceeds the 64MB limit", label)
		}
		exact := f * float64(unit)
		if exact > MaxSize {
			return 0, "", fmt.Sprintf("%s exceeds the 64MB limit", label)
		}
		if exact != math.Trunc(exact) {
			return 0, "", fmt.Sprintf("%s is not a whole number of bytes (%g)", label, exact)
		}
		b = int64(exact)
	case floatTag:
		if allDigits(n.Value) { // an integer too large for int64
			return 0, "", fmt.Sprintf("%sB exceeds the 64MB limit", n.Value)
		}
		return 0, "", fmt.Sprintf("%s, got %s", want, describe(n))
	default:
		return 0, "", fmt.Sprintf("%s, got %s", want, describe(n))
	}
	switch {
	case b < header.CompactSize:
		return 0, "", fmt.Sprintf("%s is smaller than the %d-byte compact mqbench header", label, header.CompactSize)
	case b > MaxSize:
		return 0, "", fmt.Sprintf("%s exceeds the 64MB limit", label)
	}
	return int(b), label, ""
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
