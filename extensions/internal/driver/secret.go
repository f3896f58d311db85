package driver

import (
	"fmt"
	"os"
	"strings"
)

// A secret (a password, a token, an auth secret) reaches a driver from an environment
// variable or a file the scenario names, never from the scenario itself; SecretSource is the
// one way every driver checks and reads them. Messages name the field and the variable or
// the file, never the value.

// SecretSource is where a scenario says one secret comes from: the variable the field
// EnvField names (Env), or the file FileField names (File); a source not offered or not
// used is "".
type SecretSource struct {
	EnvField, Env   string
	FileField, File string
	// NonEmpty refuses a secret that is empty or white space only (a token, or a password
	// the broker would take as none) rather than sending it.
	NonEmpty bool
}

// Check is the parse-time check: not both sources, and a named file readable now (the
// variable is read at run time: it may be set for the run only).
func (s SecretSource) Check() []FieldError {
	var errs []FieldError
	if s.Env != "" && s.File != "" {
		errs = append(errs, FieldError{Field: s.FileField, Msg: "not with " + s.EnvField + " (give the secret one way)"})
	}
	if s.File != "" {
		if _, err := s.readFile(); err != nil {
			errs = append(errs, FieldError{Field: s.FileField, Msg: err.Error()})
		}
	}
	return errs
}

// Read reads the secret from the variable or the file (one trailing line break dropped, as
// an editor leaves it); ok is false when neither is named. The variable wins when both are.
func (s SecretSource) Read(broker string) (secret string, ok bool, err error) {
	switch {
	case s.Env != "":
		v, set := os.LookupEnv(s.Env)
		if !set {
			return "", false, fmt.Errorf("%s: %s names %s, but that environment variable is not set", broker, s.EnvField, s.Env)
		}
		if s.NonEmpty && strings.TrimSpace(v) == "" {
			return "", false, fmt.Errorf("%s: %s names %s, but that environment variable is empty", broker, s.EnvField, s.Env)
		}
		return v, true, nil
	case s.File != "":
		v, err := s.readFile()
		if err != nil {
			return "", false, fmt.Errorf("%s: %s: %v", broker, s.FileField, err)
		}
		return v, true, nil
	}
	return "", false, nil
}

func (s SecretSource) readFile() (string, error) {
	b, err := os.ReadFile(s.File)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v", s.File, unwrapPath(err))
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if s.NonEmpty && strings.TrimSpace(v) == "" {
		return "", fmt.Errorf("%s is empty", s.File)
	}
	return v, nil
}
