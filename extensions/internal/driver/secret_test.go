package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("s3cret\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQB_TEST_SECRET", "from-env")
	cases := []struct {
		name, env, file string
		checkErr        string // CheckSecretSource's message ("": none)
		want            string
		ok              bool
		readErr         string
	}{
		{"neither", "", "", "", "", false, ""},
		{"env", "MQB_TEST_SECRET", "", "", "from-env", true, ""},
		{"env unset", "MQB_TEST_NO_SUCH_VAR", "", "", "", false, "MQB_TEST_NO_SUCH_VAR, but that environment variable is not set"},
		{"file, line break dropped", "", file, "", "s3cret", true, ""},
		{"missing file", "", filepath.Join(dir, "nope"), "cannot read " + filepath.Join(dir, "nope") + ": no such file", "", false, "cannot read"},
		{"both", "MQB_TEST_SECRET", file, "not with password_env", "from-env", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := CheckSecretSource("password_env", c.env, "password_file", c.file)
			switch {
			case c.checkErr == "" && len(errs) > 0:
				t.Errorf("check: %v", errs)
			case c.checkErr != "" && (len(errs) != 1 || errs[0].Field != "password_file" || !strings.Contains(errs[0].Msg, c.checkErr)):
				t.Errorf("check: %v, want password_file: %q", errs, c.checkErr)
			}
			got, ok, err := Secret("x", "password_env", c.env, "password_file", c.file)
			if got != c.want || ok != c.ok {
				t.Errorf("Secret = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
			if (err != nil) != (c.readErr != "") || (err != nil && !strings.Contains(err.Error(), c.readErr)) {
				t.Errorf("Secret error %v, want %q", err, c.readErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the secret in %v", err)
			}
		})
	}
}
