package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	file, blank := write("pw", "s3cret\r\n"), write("blank", " \n")
	t.Setenv("MQB_TEST_SECRET", "from-env")
	t.Setenv("MQB_TEST_EMPTY", "")
	cases := []struct {
		name, env, file string
		nonEmpty        bool
		checkErrs       []string // Check's messages, in order
		want            string
		ok              bool
		readErr         string
	}{
		{"neither", "", "", false, nil, "", false, ""},
		{"env", "MQB_TEST_SECRET", "", false, nil, "from-env", true, ""},
		{"env unset", "MQB_TEST_NO_SUCH_VAR", "", false, nil, "", false, "x: password_env names MQB_TEST_NO_SUCH_VAR, but that environment variable is not set"},
		{"env empty, allowed", "MQB_TEST_EMPTY", "", false, nil, "", true, ""},
		{"env empty, refused", "MQB_TEST_EMPTY", "", true, nil, "", false, "x: password_env names MQB_TEST_EMPTY, but that environment variable is empty"},
		{"file, line break dropped", "", file, false, nil, "s3cret", true, ""},
		{"file blank, allowed", "", blank, false, nil, " ", true, ""},
		{"file blank, refused", "", blank, true, []string{blank + " is empty"}, "", false, "x: password_file: " + blank + " is empty"},
		{"missing file", "", filepath.Join(dir, "nope"), false, []string{"cannot read " + filepath.Join(dir, "nope") + ": no such file"}, "", false, "x: password_file: cannot read"},
		{"both", "MQB_TEST_SECRET", file, false, []string{"not with password_env"}, "from-env", true, ""},
		{"both, file missing", "MQB_TEST_SECRET", filepath.Join(dir, "nope"), false, []string{"not with password_env", "cannot read"}, "from-env", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := SecretSource{EnvField: "password_env", Env: c.env, FileField: "password_file", File: c.file, NonEmpty: c.nonEmpty}
			errs := s.Check()
			if len(errs) != len(c.checkErrs) {
				t.Errorf("check: %v, want %q", errs, c.checkErrs)
			}
			for i := 0; i < len(errs) && i < len(c.checkErrs); i++ {
				if errs[i].Field != "password_file" || !strings.Contains(errs[i].Msg, c.checkErrs[i]) {
					t.Errorf("check: %v, want password_file: %q", errs[i], c.checkErrs[i])
				}
			}
			got, ok, err := s.Read("x")
			if got != c.want || ok != c.ok {
				t.Errorf("Read = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
			if (err != nil) != (c.readErr != "") || (err != nil && !strings.Contains(err.Error(), c.readErr)) {
				t.Errorf("Read error %v, want %q", err, c.readErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the secret in %v", err)
			}
		})
	}
}
