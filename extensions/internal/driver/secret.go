package driver

import (
	"fmt"
	"os"
	"strings"
)

// A secret (a password, an auth secret) reaches a driver from an environment variable or a
// file the scenario names, never from the scenario itself; these helpers are the one way the
// drivers that take both (password_env, password_file) check and read them. Messages name
// the variable or the file, never the value.

// CheckSecretSource is the parse-time check of a secret's two sources: not both, and a
// named file readable now (the variable is read at run time: it may be set for the run only).
func CheckSecretSource(envField, env, fileField, file string) []FieldError {
	switch {
	case env != "" && file != "":
		return []FieldError{{Field: fileField, Msg: "not with " + envField + " (give the secret one way)"}}
	case file != "":
		if _, err := os.ReadFile(file); err != nil {
			return []FieldError{{Field: fileField, Msg: fmt.Sprintf("cannot read %s: %v", file, unwrapPath(err))}}
		}
	}
	return nil
}

// Secret reads the secret from the variable env or the file (one trailing line break
// dropped, as an editor leaves it); ok is false when neither is named.
func Secret(broker, envField, env, fileField, file string) (secret string, ok bool, err error) {
	switch {
	case env != "":
		v, set := os.LookupEnv(env)
		if !set {
			return "", false, fmt.Errorf("%s: %s names %s, but that environment variable is not set", broker, envField, env)
		}
		return v, true, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", false, fmt.Errorf("%s: %s: cannot read %s: %v", broker, fileField, file, unwrapPath(err))
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), true, nil
	}
	return "", false, nil
}
