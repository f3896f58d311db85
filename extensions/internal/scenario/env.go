package scenario

import (
	"os"
	"regexp"
	"strings"
)

// envRef is ${NAME} inside a broker URL: credentials come from the environment, never from
// the scenario file, so the file can be committed and shared.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv replaces every ${NAME} in s by the variable's value and lists unset names.
func expandEnv(s string) (string, []string) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := envRef.FindStringSubmatch(ref)[1]
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	return out, missing
}

func joinNames(names []string) string { return strings.Join(names, ", ") }
