package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every key the parser accepts (a threshold's long form included) is in docs/scenario.md's reference, written as `key` or as
// the last part of a dotted `a.b.key` name: a key added to the parser without a line in the
// reference fails here.
func TestEveryKeyIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "scenario.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	documented := func(key string) bool {
		for _, form := range []string{"`" + key + "`", "." + key + "`", "`" + key + ".", "`" + key + "[", "`" + key + ":", " " + key + ":", "{" + key + ":"} {
			if strings.Contains(text, form) {
				return true
			}
		}
		return false
	}
	for _, typ := range []any{rawScenario{}, rawBroker{}, rawWorkload{}, rawPayload{}, rawCell{}, rawStage{}, rawSteps{}, rawBurst{}, rawKeyDist{}, rawReplay{}, rawValidity{}, rawFaults{}, rawFault{}, rawSearch{}, rawDistributed{}, rawExpression{}} {
		rt := reflect.TypeOf(typ)
		for i := range rt.NumField() {
			key := strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0]
			if key == "" {
				continue // rawBroker's inline driver blocks: docs/drivers.md, generated
			}
			if !documented(key) {
				t.Errorf("docs/scenario.md does not document %s's key %q", rt.Name(), key)
			}
		}
	}

}
