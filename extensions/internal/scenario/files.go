package scenario

import (
	"path/filepath"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// relativeFiles makes every relative file name in a driver's options (a string field whose
// yaml key ends in _file: tls.ca_file, credentials_file…) relative to the scenario's folder,
// as payload.file is, so a scenario and its certificates move together and run from any
// working directory. It runs after Defaults, which may build nested blocks, and before
// Validate, which reads the files.
func relativeFiles(v reflect.Value, dir string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			relativeFiles(v.Elem(), dir)
		}
	case reflect.Struct:
		t := v.Type()
		if t == reflect.TypeOf(yaml.Node{}) { // a block kept as written; its aliases may loop
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if fv.Kind() == reflect.String && strings.HasSuffix(name, "_file") {
				if p := fv.String(); p != "" && !filepath.IsAbs(p) && fv.CanSet() {
					fv.SetString(filepath.Join(dir, p))
				}
				continue
			}
			relativeFiles(fv, dir)
		}
	}
}
