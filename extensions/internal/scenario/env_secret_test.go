package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ${NAME} reads the environment of the machine that runs the scenario (a CI runner, for a
// scenario from a pull request). A variable whose name looks like a secret is expanded only
// where a credential belongs (broker.url, redacted wherever it is shown; a *_file or *_env
// broker option); a value holding URL credentials only in broker.url. Elsewhere (a
// description, a destination, a rate) it would be printed into every result file.
func TestEnvSecretsStayInCredentialFields(t *testing.T) {
	t.Setenv("MQB_T_CI_TOKEN", "tok-value-1234")
	t.Setenv("MQB_T_DB_PASSWORD", "pw-value-1234")
	t.Setenv("MQB_T_SECRETS_DIR", t.TempDir())
	t.Setenv("MQB_T_STAGE", "blue")
	t.Setenv("MQB_T_DATABASE_URL", "postgres://app:pw-value-1234@db:5432/x")
	if err := os.WriteFile(filepath.Join(os.Getenv("MQB_T_SECRETS_DIR"), "pw"), []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, broker, description, destination string
		want                                   string // "" valid
	}{
		{name: "secret in the url", broker: `{ type: redis, url: "redis://:${MQB_T_DB_PASSWORD}@127.0.0.1:6379" }`},
		{name: "secret-named folder in a *_file option", broker: `{ type: postgres, url: "postgres://u@127.0.0.1:5432/db", postgres: { password_file: "${MQB_T_SECRETS_DIR}/pw" } }`},
		{name: "plain variable anywhere", broker: `{ type: nats }`, description: "stage ${MQB_T_STAGE}", destination: "orders.${MQB_T_STAGE}"},
		{name: "secret in the description", broker: `{ type: nats }`, description: "token=${MQB_T_CI_TOKEN}",
			want: "description: ${MQB_T_CI_TOKEN} looks like a secret"},
		{name: "secret in the destination", broker: `{ type: nats }`, destination: "orders.${MQB_T_DB_PASSWORD}",
			want: "workload.destination: ${MQB_T_DB_PASSWORD} looks like a secret"},
		{name: "url with credentials outside broker.url", broker: `{ type: nats }`, description: "${MQB_T_DATABASE_URL}",
			want: "description: ${MQB_T_DATABASE_URL} holds credentials"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dest := c.destination
			if dest == "" {
				dest = "d"
			}
			doc := "name: envsecret\ndescription: \"" + c.description + "\"\nbroker: " + c.broker +
				"\nworkload: { destination: \"" + dest + "\", duration: 1s }\nmatrix:\n  - { size: 64B, rate: 10 }\n"
			path := filepath.Join(t.TempDir(), "envsecret.yaml")
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			var es *Errors
			if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want a scenario error with %q", err, c.want)
			}
			if strings.Contains(err.Error(), "value-1234") {
				t.Errorf("the error quotes the variable's value: %v", err)
			}
		})
	}
}
