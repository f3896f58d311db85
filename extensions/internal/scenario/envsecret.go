package scenario

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/redact"
)

// ${NAME} reads the environment of whatever machine runs the scenario, a CI runner included,
// for a file that came in a pull request. Most fields end up in the results (summary.json,
// report.html, junit.xml), so a secret is expanded only where a credential belongs:
// broker.url (redacted wherever it is shown) and the broker options naming a file or a
// variable (*_file, *_env).

// secretWords, found in a variable's name (upper-cased), mark it a secret; secretTokens must
// be a whole _-separated part of it (PASS, not COMPASS).
var (
	secretWords  = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "APIKEY", "API_KEY", "ACCESS_KEY", "SESSION", "COOKIE"}
	secretTokens = []string{"PASS", "PWD", "PW", "KEY", "AUTH", "CREDS"}
)

// secretWord returns the part of name that marks it a secret, "" when none does.
func secretWord(name string) string {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return w
		}
	}
	for _, part := range strings.Split(up, "_") {
		for _, w := range secretTokens {
			if part == w {
				return w
			}
		}
	}
	return ""
}

// credentialField says whether the field at path may take a secret.
func credentialField(path string) bool {
	return path == "broker.url" || strings.HasPrefix(path, "broker.") && (strings.HasSuffix(path, "_file") || strings.HasSuffix(path, "_env"))
}

// secretMisplaced checks the references of a scalar at path: a secret-named variable (with
// or without a default), or a variable's value with URL credentials, outside broker.url. A
// default is written in the file, so it is not a secret. The message names the field and the
// variable, never the value.
func secretMisplaced(uses []envUse, path string) string {
	for _, u := range uses {
		if w := secretWord(u.name); w != "" && !credentialField(path) {
			return "${" + u.name + "} looks like a secret (its name holds " + w + "): a secret is expanded only in broker.url or a broker option ending in _file or _env, as elsewhere it would be shown in the results"
		}
		if u.fromEnv && path != "broker.url" && redact.Secrets(u.value) != u.value {
			return "${" + u.name + "} holds credentials (a URL's user info or secret parameter): only broker.url may carry them, as elsewhere they would be shown in the results"
		}
	}
	return ""
}
