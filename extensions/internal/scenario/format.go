package scenario

import "reflect"

// RawTypes gives the structs the strict decoder fills, for the tools that describe the file
// format from them (internal/schemagen writes the JSON Schema), so a key added here reaches
// editors without being written twice. "scenario" is the file; "keydist" and "expression"
// are the mapping forms of two values that also take a scalar (a key's name, a threshold).
func RawTypes() map[string]reflect.Type {
	return map[string]reflect.Type{
		"scenario":   reflect.TypeOf(rawScenario{}),
		"keydist":    reflect.TypeOf(rawKeyDist{}),
		"expression": reflect.TypeOf(rawExpression{}),
	}
}
