package mongodrv

import (
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// claimsSuffix names the claims collection: <collection>.claims.
const claimsSuffix = ".claims"

// checkURL: a MongoDB connection string, mongodb://[user:password@]host[:port][,host…][/db][?options]
// (parsed and validated by the Go driver itself, so its options are checked too) or
// mongodb+srv://host (one host, no port; the driver resolves its DNS records at connect time,
// so here only the host is checked). The driver's messages may quote the url: they are
// redacted.
func checkURL(raw string) error {
	s := strings.TrimSpace(raw)
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return fmt.Errorf("url %q: expected mongodb://host:port (or mongodb+srv://host)", redact.URL(raw))
	}
	hs := hosts(s)
	switch strings.ToLower(scheme) {
	case "mongodb":
		if _, err := connstring.ParseAndValidate(s); err != nil {
			return errors.New(redact.Text(err.Error(), s))
		}
	case "mongodb+srv":
		if len(hs) != 1 || strings.Contains(hs[0], ":") {
			return fmt.Errorf("url %s: mongodb+srv:// takes one host name without a port", redact.URL(raw))
		}
	default:
		return fmt.Errorf("url scheme %q is not supported (valid: mongodb, mongodb+srv)", scheme)
	}
	for _, h := range hs {
		if err := driver.CheckHostPort(h, "server"); err != nil {
			return err
		}
	}
	return nil
}

// hosts is the url's comma-separated host list, without scheme, credentials, path or options
// (no DNS look-up, unlike the driver's parser for mongodb+srv).
func hosts(raw string) []string {
	_, rest, _ := strings.Cut(strings.TrimSpace(raw), "://")
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	return strings.Split(rest, ",")
}

// checkDatabase applies MongoDB's database naming rules: 1–63 bytes, none of / \ . " $ space
// or NUL. (FerretDB is stricter: letters, digits, _ and - only; it refuses others itself.)
func checkDatabase(name string) error {
	if name == "" || len(name) > 63 || strings.ContainsAny(name, "/\\. \"$\x00") {
		return fmt.Errorf("MongoDB database name %q must be 1–63 bytes without / \\ . \" $ space or NUL", name)
	}
	return nil
}

// checkCollection applies MongoDB's collection naming rules to the destination: no $ or NUL,
// not starting with "system." or ".", not ending in "."; at most 228 bytes, so that the
// claims collection "<collection>.claims" stays within FerretDB's 235 (MongoDB allows 255
// bytes for database + "." + collection).
func checkCollection(name string, _ driver.Options) error {
	switch {
	case name == "" || len(name) > 228:
		return fmt.Errorf("MongoDB collection name %q must be 1–228 bytes", name)
	case strings.ContainsAny(name, "$\x00"):
		return fmt.Errorf("MongoDB collection name %q must not contain $ or NUL", name)
	case strings.HasPrefix(name, "system.") || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "."):
		return fmt.Errorf("MongoDB collection name %q must not start with \"system.\" or \".\" nor end with \".\"", name)
	case strings.HasSuffix(name, claimsSuffix):
		return fmt.Errorf("collection name %q ends in %q, the suffix of the run's claims collections", name, claimsSuffix)
	}
	return nil
}
