package pgdrv

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// validIdent: the names mqbench creates are always quoted in SQL, so case, . and - are kept;
// 63 bytes is PostgreSQL's identifier limit (NAMEDATALEN - 1): longer ones would be cut.
var validIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,62}$`)

func checkIdent(what, name string) error {
	if !validIdent.MatchString(name) {
		return fmt.Errorf("PostgreSQL %s name %q must be 1–63 characters of a-z A-Z 0-9 _ . -, starting with a letter or _", what, name)
	}
	return nil
}

// checkTable applies the naming rule to the destination (the queue table).
func checkTable(name string, _ driver.Options) error { return checkIdent("table", name) }

// checkURL: one server, postgres://[user[:password]@]host[:port]/database[?params] (or
// postgresql://); pgx parses the parameters at Open.
func checkURL(raw string) error {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		return fmt.Errorf("url %s: expected postgres://user@host:port/database", redact.URL(raw))
	}
	if strings.Contains(s, ",") {
		return fmt.Errorf("url %s: give one server; several hosts are not supported", redact.URL(raw))
	}
	return driver.CheckURLs(s, "postgres", "postgresql")
}
