package scenario

import (
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ${NAME} in any scalar value: credentials and per-environment values (a destination per
// stage, a rate per pipeline) come from the environment, so the file can be committed and
// shared. The expanded value is validated like a written one. The forms are the shell's:
// ${NAME}, ${NAME:-default} (unset or empty), ${NAME-default} (unset), ${NAME:?message},
// ${NAME?message}; $$ is a literal $. $NAME without braces and an unterminated ${ are
// errors: left literal, they failed much later as an unreachable broker at "$KAFKA_URL".

// Vars says where the values of ${NAME} come from.
type Vars struct {
	// Lookup returns a variable's value (k6's -e values before the process environment);
	// nil reads the process environment.
	Lookup func(name string) (string, bool)
	// NoEnv checks a scenario without the variables' values (validate --no-env): a reference
	// without a default is not an error, and its field's value is not judged.
	NoEnv bool
}

func (v Vars) lookup(name string) (string, bool) {
	switch {
	case v.NoEnv:
		return "", false
	case v.Lookup != nil:
		return v.Lookup(name)
	}
	return os.LookupEnv(name)
}

// envUse is one reference in a value and what it expanded to.
type envUse struct {
	name    string
	value   string
	fromEnv bool // the value is the variable's (not the written default)
}

// expansion is a scalar's value once expanded.
type expansion struct {
	value   string
	uses    []envUse
	missing []string // unset variables without a default
	unknown bool     // NoEnv: a variable without a default, so the value is not known
	problem string   // a malformed reference or a ${NAME:?message} whose variable is unset
}

// expand expands every reference in s. Problems name the variable or a byte offset, never
// quote the value (it came from the file).
func expand(s string, vars Vars) expansion {
	var x expansion
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == '$':
			b.WriteByte('$')
			i++
		case c == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				x.problem = "unterminated ${ at byte " + strconv.Itoa(i) + " of the value (no closing }; write $$ for a literal $)"
				return x
			}
			body := s[i+2 : i+2+end]
			name := s[i+2 : i+2+nameLen(body)]
			op, arg, ok := refOp(body[len(name):])
			switch {
			case name == "":
				x.problem = "${ at byte " + strconv.Itoa(i) + " of the value does not start with a variable name (a letter or _, then letters, digits or _)"
				return x
			case !ok:
				x.problem = "${" + name + " at byte " + strconv.Itoa(i) + " of the value is followed by an unsupported form: use ${" + name + "}, ${" + name + ":-default} or ${" + name + ":?message}"
				return x
			case strings.Contains(arg, "$"):
				x.problem = "the default or message of ${" + name + "} holds a $: a default is written literally"
				return x
			}
			v, set := vars.lookup(name)
			use := envUse{name: name, value: v, fromEnv: set}
			empty := !set || (v == "" && strings.HasPrefix(op, ":"))
			switch {
			case !empty:
			case op == ":-" || op == "-":
				use.value, use.fromEnv = arg, false
			case vars.NoEnv:
				x.unknown = true
			case op == ":?" || op == "?":
				x.problem = "environment variable " + name + " is not set or empty: " + strconv.Quote(arg)
				if arg == "" {
					x.problem = "environment variable " + name + " is not set or empty (the value requires it)"
				}
				return x
			case !set:
				x.missing = append(x.missing, name)
			}
			x.uses = append(x.uses, use)
			b.WriteString(use.value)
			i += 2 + end
		case c == '_' || isLetter(c):
			name := s[i+1 : i+1+nameLen(s[i+1:])]
			x.problem = "$" + name + " is not expanded: write ${" + name + "} (or $$ for a literal $)"
			return x
		default:
			b.WriteByte('$') // "$5", "a $ b": not a reference
		}
	}
	x.value = b.String()
	return x
}

// refOp splits what follows a reference's name: "" (none), ":-", "-", ":?" or "?" and its
// argument; ok is false for any other form.
func refOp(rest string) (op, arg string, ok bool) {
	if rest == "" {
		return "", "", true
	}
	for _, o := range []string{":-", ":?", "-", "?"} {
		if strings.HasPrefix(rest, o) {
			return o, rest[len(o):], true
		}
	}
	return "", "", false
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// nameLen is the length of the variable name s starts with (0 when none).
func nameLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || isLetter(c) || i > 0 && c >= '0' && c <= '9') {
			return i
		}
	}
	return len(s)
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// expandTree expands ${NAME} in every scalar value of the tree (not in keys), before it is
// decoded, so `rate: ${RATE}` (or "${RATE}") is an integer and `destination: orders.${STAGE}` a string. An
// unset variable is a problem at its value; the value is then left as written.
func (d *decoder) expandTree(n *yaml.Node, path string, seen map[*yaml.Node]bool, vars Vars) {
	if n == nil || seen[n] {
		return // an alias's target is expanded once, where it is anchored
	}
	seen[n] = true
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			d.expandTree(c, p, seen, vars)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			d.expandTree(n.Content[i+1], join(path, n.Content[i].Value), seen, vars)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "$") {
			return
		}
		x := expand(n.Value, vars)
		if msg := secretMisplaced(x.uses, path); msg != "" {
			d.add(n, path, "%s", msg)
			d.unset[n] = true
			return
		}
		switch {
		case x.problem != "":
			d.add(n, path, "%s", x.problem)
			d.unset[n] = true // reported once: decoding skips the value
			return
		case len(x.missing) > 0:
			d.add(n, path, "environment variable %s is not set (the value refers to it as ${%s})", joinNames(x.missing), x.missing[0])
			d.unset[n] = true
			return
		case x.unknown:
			d.unset[n] = true // validate --no-env: nothing to judge, nothing to report
			return
		case len(x.uses) == 0:
			n.Value = x.value // only $$: the written type stands
			return
		}
		// Typed as if the value had been written unquoted, quoted or not (in a flow mapping
		// "${RATE}" must be quoted); a string field takes it whatever its type (decode.go).
		n.Value, n.Tag, n.Style = x.value, plainTag(x.value), 0
		d.expanded[n] = true
	}
}

// plainTag is the tag YAML gives v written unquoted (!!int for 3000, !!str for 5ms).
func plainTag(v string) string {
	var doc yaml.Node
	if yaml.Unmarshal([]byte(v), &doc) != nil || len(doc.Content) != 1 {
		return strTag
	}
	if c := doc.Content[0]; c.Kind == yaml.ScalarNode && c.Style == 0 {
		return c.ShortTag()
	}
	return strTag
}

// EnvNames lists the variables the ${NAME} references (any form) in the tree's scalar
// values name, in file order (the k8s generator asks for a Secret holding them).
func EnvNames(n *yaml.Node) []string {
	var names []string
	seen := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "$") {
			for _, u := range expand(n.Value, Vars{NoEnv: true}).uses {
				names = append(names, u.name)
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return names
}
