package textclean

import "reflect"

// Strings returns a copy of v (a struct, a pointer to one, a slice, a map) whose every
// string, however deep, went through Clean; v itself is not changed. A writer of one-line
// text output (summary.txt) cleans the whole value it renders once, so a field added later
// cannot reach the output raw.
func Strings[T any](v T) T {
	out, ok := deep(reflect.ValueOf(&v).Elem()).Interface().(T)
	if !ok {
		return v
	}
	return out
}

func deep(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(Clean(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(deep(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deep(v.Elem()))
		return out
	case reflect.Struct, reflect.Array:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		n := v.Len
		if v.Kind() == reflect.Struct {
			n = v.NumField
		}
		for i := range n() {
			f := out.Field
			if v.Kind() == reflect.Array {
				f = out.Index
			}
			if f(i).CanSet() && hasString(f(i).Type(), 0) {
				f(i).Set(deep(f(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() || !hasString(v.Type().Elem(), 0) {
			return v // numbers only: shared, never written
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deep(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(deep(it.Key()), deep(it.Value()))
		}
		return out
	}
	return v
}

// hasString says whether a value of type t can hold a string (depth bounds recursive types).
func hasString(t reflect.Type, depth int) bool {
	if depth > 8 {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface, reflect.Map:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return hasString(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if hasString(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}
