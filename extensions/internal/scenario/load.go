package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxFileSize bounds a scenario file (1 MiB). The shipped ones are under 3 KiB; a file CI
// is handed can be anything, and decoding YAML costs many times its size in memory.
const MaxFileSize = 1 << 20

// Load reads and validates the scenario file at path. Relative payload files are resolved
// against path's directory. On failure the error is an *Errors listing every problem.
func Load(path string) (*Scenario, error) { return LoadVars(path, Vars{}) }

// LoadVars is Load with the variables' values taken from vars.
func LoadVars(path string, vars Vars) (*Scenario, error) {
	data, msg := readCapped(path)
	if msg != "" {
		return nil, &Errors{File: path, Problems: []Problem{{File: path, Msg: msg}}}
	}
	return ParseVars(path, data, vars)
}

// tooLarge is the problem of a file over MaxFileSize.
const tooLarge = "scenario file larger than the 1 MiB (1048576 bytes) limit"

// readCapped reads at most MaxFileSize bytes of path, refusing a larger file from its size
// before reading any (and a pipe or device that streams on, once past the cap). The
// problem is "" on success.
func readCapped(path string) ([]byte, string) {
	unreadable := func(err error) string {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "cannot read scenario file: " + err.Error()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, unreadable(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileSize {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	switch {
	case err != nil:
		return nil, unreadable(err)
	case len(data) > MaxFileSize:
		return nil, tooLarge
	}
	return data, ""
}

// Parse validates scenario text. file names it in problems, must have the scenario's name
// as its stem, and anchors relative payload paths; "" skips the stem check (text from
// stdin). On failure the error is an *Errors listing every problem, sorted by line.
func Parse(file string, data []byte) (*Scenario, error) { return ParseVars(file, data, Vars{}) }

// ParseVars is Parse with the variables' values taken from vars.
func ParseVars(file string, data []byte, vars Vars) (*Scenario, error) {
	shown := file
	if shown == "" {
		shown = "<input>"
	}
	if len(data) > MaxFileSize {
		return nil, &Errors{File: shown, Problems: []Problem{{File: shown, Msg: tooLarge}}}
	}
	root, syntax := parseYAML(shown, data)
	if syntax != nil {
		return nil, &Errors{File: shown, Problems: []Problem{*syntax}}
	}
	d := newDecoder(shown)
	d.expandTree(root, "", map[*yaml.Node]bool{}, vars)
	var raw rawScenario
	var s *Scenario
	if root.Kind != yaml.MappingNode {
		d.add(root, "", "expected a mapping of scenario fields (name, broker, workload, matrix, …), got %s", describe(root))
	} else {
		d.decode(root, reflect.ValueOf(&raw).Elem(), "")
		s = d.build(&raw, file)
	}
	if len(d.problems) > 0 {
		sortProblems(d.problems)
		return nil, &Errors{File: shown, Problems: d.problems}
	}
	if s != nil {
		sum := sha256.Sum256(data)
		s.SHA256 = hex.EncodeToString(sum[:])
	}
	return s, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML returns the single document's root node, or the syntax problem. A file with a
// second document is refused: the rest of it would otherwise be silently ignored.
func parseYAML(file string, data []byte) (root *yaml.Node, problem *Problem) {
	defer func() {
		// yaml.v3 has panicked on hostile input before; a scenario tool must not.
		if r := recover(); r != nil {
			root, problem = nil, &Problem{File: file, Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Problem{File: file, Line: 1, Msg: "empty scenario file"}
		}
		return nil, syntaxProblem(file, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxProblem(file, err)
	default:
		return nil, &Problem{File: file, Line: max(next.Line, 1), Msg: "a scenario file holds one YAML document; found a second one (remove the \"---\")"}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &Problem{File: file, Line: 1, Msg: "empty scenario file"}
	}
	return doc.Content[0], nil
}

func syntaxProblem(file string, err error) *Problem {
	msg := err.Error()
	p := &Problem{File: file}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	p.Msg = "invalid YAML: " + msg
	return p
}
