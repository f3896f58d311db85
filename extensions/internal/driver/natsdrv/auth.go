package natsdrv

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// How a NATS client proves who it is (options TLS, CredentialsFile, NKeySeedFile), beside
// user and password or a token in the url. Secrets stay in files or environment variables,
// never in the scenario.

// validateAuth reads the files now: a missing or malformed one is a scenario error.
func (a *Options) validateAuth() []driver.FieldError {
	errs := a.TLS.Validate("tls")
	if a.CredentialsFile != "" && a.NKeySeedFile != "" {
		errs = append(errs, driver.FieldError{Field: "nkey_seed_file", Msg: "not with credentials_file (choose one way to authenticate)"})
	}
	if f := a.CredentialsFile; f != "" {
		if b, err := os.ReadFile(f); err != nil {
			errs = append(errs, driver.FieldError{Field: "credentials_file", Msg: "cannot read " + f + ": " + pathless(err)})
		} else if _, err := nkeys.ParseDecoratedNKey(b); err != nil {
			errs = append(errs, driver.FieldError{Field: "credentials_file", Msg: f + " holds no NKey seed: " + err.Error()})
		}
	}
	if f := a.NKeySeedFile; f != "" {
		if _, err := seedPublicKey(f); err != nil {
			errs = append(errs, driver.FieldError{Field: "nkey_seed_file", Msg: err.Error()})
		}
	}
	return errs
}

// seedPublicKey reads an NKey seed file and returns the user's public key.
func seedPublicKey(f string) (string, error) {
	b, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %s", f, pathless(err))
	}
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(b))))
	if err != nil {
		return "", fmt.Errorf("%s holds no NKey seed (SU…): %v", f, err)
	}
	defer kp.Wipe()
	return kp.PublicKey()
}

// authOptions are the connection options that carry the auth; host is the url's (the TLS name).
func (a *Options) authOptions(rawURL string) ([]nats.Option, error) {
	var out []nats.Option
	if a.TLS != nil {
		host := ""
		if u, err := url.Parse(rawURL); err == nil {
			host = u.Hostname()
		}
		c, err := a.TLS.Config(host)
		if err != nil {
			return nil, fmt.Errorf("nats: tls: %w", err)
		}
		out = append(out, nats.Secure(c))
	}
	if a.CredentialsFile != "" {
		out = append(out, nats.UserCredentials(a.CredentialsFile))
	}
	if a.NKeySeedFile != "" {
		o, err := nats.NkeyOptionFromSeed(a.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("nats: nkey_seed_file: %w", err)
		}
		out = append(out, o)
	}
	return out, nil
}

// pathless is an os error without the path it repeats.
func pathless(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
