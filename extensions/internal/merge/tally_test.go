package merge

import (
	"reflect"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/ledger"
)

// Every count of the ledger (totals and per subscription) is summed over the runners: a
// field added to ledger.Tally and forgotten here fails this test.
func TestAddTallySumsEveryCount(t *testing.T) {
	var a, b ledger.Tally
	fill(reflect.ValueOf(&a).Elem(), 1)
	fill(reflect.ValueOf(&b).Elem(), 10)
	a.Subscriptions, b.Subscriptions = []ledger.SubTally{{}}, []ledger.SubTally{{}}
	fill(reflect.ValueOf(&a.Subscriptions[0]).Elem(), 1)
	fill(reflect.ValueOf(&b.Subscriptions[0]).Elem(), 10)
	got := addTally(a, b)
	var want ledger.Tally
	fill(reflect.ValueOf(&want).Elem(), 11)
	want.Subscriptions = []ledger.SubTally{{}}
	fill(reflect.ValueOf(&want.Subscriptions[0]).Elem(), 11)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// fill sets every unsigned field of struct v to v0, v0+1, … in field order.
func fill(v reflect.Value, v0 uint64) {
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Uint64 {
			f.SetUint(v0 * uint64(i+1))
		}
	}
}
