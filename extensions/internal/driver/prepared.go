package driver

import (
	"fmt"
	"strings"
)

// refCloner is implemented by options holding maps or pointers, so Prepared can give a
// driver a copy that shares nothing with the scenario's value.
type refCloner interface{ CloneRefs() }

// Prepared returns a defaulted, validated copy of a driver's options block v (nil means all
// defaults), so a driver never mutates the scenario's value. T is the driver's Options struct.
func Prepared[T any, P interface {
	*T
	Options
}](broker string, v any) (P, error) {
	var o T
	switch v := v.(type) {
	case nil:
	case P:
		if v != nil {
			o = *v
		}
	case T:
		o = v
	default:
		return nil, fmt.Errorf("%s: options of type %T, want %T", broker, v, P(nil))
	}
	p := P(&o)
	if c, ok := any(p).(refCloner); ok {
		c.CloneRefs()
	}
	p.Defaults()
	if errs := p.Validate(); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Field + ": " + e.Msg
		}
		return nil, fmt.Errorf("%s: invalid options: %s", broker, strings.Join(msgs, "; "))
	}
	return p, nil
}
