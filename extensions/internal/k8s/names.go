package k8s

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

var (
	// dns1123Label is a Kubernetes object name that is also a valid label value and host
	// name: lower-case letters, digits and '-', starting and ending with a letter or digit.
	dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// configMapKey is a ConfigMap data key: keys are file names under /test, with no '/'.
	configMapKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
	// quantity is a Kubernetes resource quantity in the forms people write: 500m, 2, 1.5, 1Gi.
	quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)
	// imageRef is [registry/]path[:tag][@sha256:digest]; tag and digest are checked apart.
	imageRef = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[0-9a-f]{64})?$`)
	notLabel = regexp.MustCompile(`[^a-z0-9-]+`)
)

const maxLabel = 63

// MaxNameLen is how long a TestRun's name may be for runners 1..n: the operator derives
// `<name>-initializer` and `<name>-starter` Jobs and `<name>-service-<i>` Services, and a
// Job's name is also its pods' job-name label, so each must stay a 63-character label.
func MaxNameLen(n int) int {
	return maxLabel - max(len("-initializer"), len("-service-")+len(strconv.Itoa(n)))
}

// CheckLabel explains why s cannot be an object name (a DNS-1123 label), or returns "".
func CheckLabel(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > maxLabel:
		return fmt.Sprintf("%q is %d characters, more than %d", s, len(s), maxLabel)
	case !dns1123Label.MatchString(s):
		return fmt.Sprintf("%q is not a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)", s)
	}
	return ""
}

// CheckRunID explains why id cannot name a run of n runners, or returns "". The run id is
// also the TestRun's name, so every name derived from it must be valid too; Services need a
// DNS-1035 label, which starts with a letter.
func CheckRunID(id string, n int) string {
	if msg := CheckLabel(id); msg != "" {
		return msg
	}
	if id[0] < 'a' || id[0] > 'z' {
		return fmt.Sprintf("%q must start with a letter (the operator names Services after it)", id)
	}
	if l := MaxNameLen(n); len(id) > l {
		return fmt.Sprintf("%q is %d characters; with %d runners at most %d fit (the operator appends -initializer and -service-<i>)", id, len(id), n, l)
	}
	return ""
}

// DefaultRunID is <scenario>-<UTC timestamp>, lower-case and cut to fit n runners' names.
func DefaultRunID(scenario string, now time.Time, n int) string {
	stamp := strings.ToLower(runenv.Stamp(now))
	base := strings.Trim(notLabel.ReplaceAllString(strings.ToLower(scenario), "-"), "-")
	if base == "" || base[0] < 'a' || base[0] > 'z' {
		base = "mq-" + base
	}
	if room := MaxNameLen(n) - len(stamp) - 1; len(base) > room {
		base = strings.TrimRight(base[:room], "-")
	}
	return base + "-" + stamp
}

// CheckImage explains why ref is not a pinned image reference, or returns "". Without a
// tag or digest every node pulls whatever :latest is that day, and runners of one run could
// differ.
func CheckImage(ref string) string {
	if !imageRef.MatchString(ref) {
		return fmt.Sprintf("%q is not an image reference ([registry/]name:tag or name@sha256:…)", ref)
	}
	if strings.Contains(ref, "@sha256:") {
		return ""
	}
	last := ref[strings.LastIndex(ref, "/")+1:]
	if !strings.Contains(last, ":") {
		return fmt.Sprintf("%q has neither a tag nor a digest: pin the image (name:tag or name@sha256:…)", ref)
	}
	return ""
}

// CheckQuantity explains why q is not a resource quantity, or returns "".
func CheckQuantity(q string) string {
	if !quantity.MatchString(q) {
		return fmt.Sprintf("%q is not a Kubernetes quantity (e.g. 500m, 2, 1Gi)", q)
	}
	return ""
}
