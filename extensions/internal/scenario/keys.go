package scenario

import (
	"math"
	"reflect"

	"gopkg.in/yaml.v3"
)

// Message keys: a name (none, fixed, round-robin, random) or a distribution over a key space,
// which is what puts load on one Kafka partition or one consistent-hash queue:
//
//	key: { type: zipf, s: 1.1, keys: 10000 }               key k with weight 1 / k^s
//	key: { type: hot, keys: 10000, hot: { share: 80%, keys: 1% } }   80% of messages on 1% of the keys
//	key: { type: uniform, keys: 10000 } / { type: round-robin, keys: 64 }

// KeyDist is how message keys are drawn (Payload.Keys): Type is the distribution, Count the
// key space (keys k0 … k<Count-1>).
type KeyDist struct {
	Type     string
	Count    int
	S        float64 // zipf's exponent, > 0
	HotShare float64 // hot: the fraction of messages on the hot keys
	HotKeys  float64 // hot: the fraction of the keys that are hot
}

type rawKeyDist struct {
	Type string  `yaml:"type"`
	Keys int     `yaml:"keys"`
	S    float64 `yaml:"s"`
	Hot  struct {
		Share string `yaml:"share"`
		Keys  string `yaml:"keys"`
	} `yaml:"hot"`
}

// maxKeys bounds a key space (zipf keeps a table of its weights: 8 bytes a key).
const maxKeys = 1_000_000

// Key types: the names, and the distributions.
var (
	keyNames = []string{"none", "fixed", "round-robin", "random"}
	keyDists = []string{"zipf", "hot", "uniform", "round-robin"}
)

// messageKeys reads payload.key: a name, or a distribution's mapping.
func (d *decoder) messageKeys(n *yaml.Node, p string) (string, KeyDist) {
	n = d.resolve(n)
	if n == nil || n.Kind == 0 || isNull(n) {
		return "none", KeyDist{}
	}
	if n.Kind != yaml.MappingNode {
		if n.Kind != yaml.ScalarNode {
			d.errorf(p, "expected one of none, fixed, round-robin, random or a distribution ({ type: zipf, s: 1.1, keys: 10000 }), got %s", describe(n))
			return "none", KeyDist{}
		}
		d.vals[p] = n
		return d.oneOf(p, n.Value, "none", keyNames...), KeyDist{}
	}
	var rk rawKeyDist
	d.decode(n, reflect.ValueOf(&rk).Elem(), p)
	kd := KeyDist{Type: d.oneOf(p+".type", rk.Type, "", keyDists...), S: rk.S}
	if !d.set(p + ".type") {
		d.missing(p + ".type")
	}
	if !d.set(p + ".keys") {
		d.missing(p + ".keys")
	}
	kd.Count = d.intIn(p+".keys", rk.Keys, 0, 1, maxKeys)
	switch {
	case kd.Type == "zipf" && !d.set(p+".s"):
		d.missing(p + ".s")
	case kd.Type == "zipf" && d.usable(p+".s") && !(rk.S > 0 && rk.S <= 10):
		d.errorf(p+".s", "must be above 0 and at most 10, got %s", d.vals[p+".s"].Value)
	case kd.Type != "zipf" && d.set(p+".s"):
		d.errorf(p+".s", "applies to type: zipf only")
	}
	switch {
	case kd.Type == "hot" && !d.set(p+".hot"):
		d.missing(p + ".hot")
	case kd.Type == "hot":
		kd.HotShare = d.fraction(p+".hot.share", rk.Hot.Share)
		kd.HotKeys = d.fraction(p+".hot.keys", rk.Hot.Keys)
		if kd.HotKeys > 0 && kd.Count > 0 && int(math.Ceil(kd.HotKeys*float64(kd.Count))) >= kd.Count {
			d.errorf(p+".hot.keys", "leaves no cold key among %d", kd.Count)
		}
	case d.set(p + ".hot"):
		d.errorf(p+".hot", "applies to type: hot only")
	}
	return kd.Type, kd
}

// fraction reads a required percentage strictly between 0 and 100 as a fraction.
func (d *decoder) fraction(path, v string) float64 {
	if !d.set(path) {
		d.missing(path)
		return 0
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	bp, ok := share(n)
	if !ok || bp >= 10000 {
		d.errorf(path, "expected a percentage above 0 and below 100, like 80%%, got %q", v)
		return 0
	}
	return float64(bp) / 10000
}
