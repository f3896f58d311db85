package reference

import (
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"one two three", 7, []string{"one two", "three"}},
		{"one two three", 100, []string{"one two three"}},
		{"a-very-long-word x", 5, []string{"a-very-long-word", "x"}},
		{"  spaced   out  ", 20, []string{"spaced out"}},
	} {
		if got := wrap(c.in, c.width); !slices.Equal(got, c.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestTableWrapsCellsInTheirColumn(t *testing.T) {
	var b strings.Builder
	p := printer{w: &b}
	p.table([][]string{{"k", "one two three", "x"}, {"key", "a", "y"}}, []int{0, 7, 0}, "  ")
	want := "k    one two  x\n     three\nkey  a        y\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteBroker(t *testing.T) {
	if len(brokers) == 0 {
		t.Fatal("no generated data: run go generate ./internal/reference/")
	}
	for _, br := range brokers {
		t.Run(br.Name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteBroker(&b, br); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			lines := strings.Split(out, "\n")
			header := -1
			for i, l := range lines {
				if strings.HasPrefix(l, "KEY ") {
					header = i
				}
			}
			if header < 0 {
				t.Fatalf("no table header in\n%s", out)
			}
			typeCol := strings.Index(lines[header], "TYPE")
			for _, o := range br.Options {
				row := ""
				for _, l := range lines[header+1:] {
					if strings.HasPrefix(l, o.Key+" ") {
						row = l
						break
					}
				}
				if row == "" {
					t.Errorf("no row for %s", o.Key)
					continue
				}
				if !strings.HasPrefix(row[typeCol:], o.Type) && !strings.HasPrefix(o.Type, strings.TrimSpace(row[typeCol:typeCol+17])) {
					t.Errorf("%s: type not under TYPE: %q", o.Key, row)
				}
				if !strings.Contains(strings.Join(strings.Fields(out), " "), o.Description) {
					t.Errorf("%s: description missing", o.Key)
				}
			}
			for _, want := range []string{br.DefaultURL, "Example (" + br.Example + ")", "name: " + strings.TrimSuffix(strings.TrimPrefix(br.Example, "scenarios/"), ".yaml")} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q", want)
				}
			}
		})
	}
}

func TestWriteIndex(t *testing.T) {
	var b strings.Builder
	if err := WriteIndex(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, br := range brokers {
		if !strings.Contains(out, "\n"+br.Name+" ") || !strings.Contains(out, br.Summary) {
			t.Errorf("no line for %s in\n%s", br.Name, out)
		}
	}
	for _, k := range TopLevel {
		if !strings.Contains(out, "\n"+k.Name+" ") {
			t.Errorf("no line for the scenario key %s", k.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	if b, err := Lookup("kafka"); err != nil || b.Name != "kafka" {
		t.Errorf("Lookup(kafka) = %q, %v", b.Name, err)
	}
	_, err := Lookup("kafak")
	if err == nil || !strings.Contains(err.Error(), "valid: "+strings.Join(Names(), ", ")) {
		t.Errorf("Lookup(kafak) error %v, want the valid names", err)
	}
}
