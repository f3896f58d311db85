package refgen

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/reference"
)

// source is what the reference reads from a driver package's Go files.
type source struct {
	pkgName   string
	pkgDoc    string            // the package comment
	typeDocs  map[string]string // "TopicOptions" → its doc comment, one line
	fieldDocs map[string]string // "TopicOptions.Partitions" → its doc comment, one line
}

// adopt adds the doc comments of other's types and fields that src does not declare itself.
func (src *source) adopt(other *source) {
	for k, v := range other.typeDocs {
		if _, ok := src.typeDocs[k]; !ok {
			src.typeDocs[k] = v
		}
	}
	for k, v := range other.fieldDocs {
		if _, ok := src.fieldDocs[k]; !ok {
			src.fieldDocs[k] = v
		}
	}
}

// parsePackage reads the doc comments of every type and struct field declared in the
// package's non-test files.
func parsePackage(dir string) (*source, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	src := &source{typeDocs: map[string]string{}, fieldDocs: map[string]string{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		src.pkgName = f.Name.Name
		if f.Doc != nil && src.pkgDoc == "" {
			src.pkgDoc = f.Doc.Text()
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				src.typeDocs[ts.Name.Name] = oneLine(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						src.fieldDocs[ts.Name.Name+"."+n.Name] = oneLine(fl.Doc)
					}
				}
			}
		}
	}
	return src, nil
}

func oneLine(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// splitPackageDoc returns the package comment's first paragraph as one line ("Package
// kafkadrv is mqbench's Kafka driver…" read as "mqbench's Kafka driver…") and the rest as
// Markdown.
func splitPackageDoc(doc, pkgName string) (about, details string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(doc), "\n\n")
	about = strings.Join(strings.Fields(first), " ")
	about = strings.TrimPrefix(about, "Package "+pkgName+" is ")
	if rest == "" {
		return about, ""
	}
	var p comment.Parser
	pr := comment.Printer{HeadingLevel: 4}
	return about, strings.TrimSpace(string(pr.Markdown(p.Parse(rest))))
}

// importComments reads package all's import lines: each carries "// name: summary".
func importComments(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, imp := range f.Imports {
			if name, summary, ok := strings.Cut(oneLine(imp.Comment), ": "); ok {
				out[name] = summary
			}
		}
	}
	return out, nil
}

// modulePath reads the module path from go.mod.
func modulePath(modDir string) (string, error) {
	f, err := os.Open(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`), nil
		}
	}
	return "", fmt.Errorf("no module line in %s", f.Name())
}

// replaceGoNames rewrites Go field and type names in descriptions as the YAML keys a user
// writes ("FetchMinBytes" → "`fetch_min_bytes`"). All-capital names (TLS, SASL) are also
// protocol names, so they are only rewritten where they open a description.
func replaceGoNames(rows []reference.Option, names map[string]string) {
	if len(names) == 0 {
		return
	}
	var alts []string
	for n := range names {
		alts = append(alts, regexp.QuoteMeta(n))
	}
	sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	re := regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
	for i := range rows {
		d := rows[i].Description
		locs := re.FindAllStringIndex(d, -1)
		var b strings.Builder
		last := 0
		for _, l := range locs {
			word := d[l[0]:l[1]]
			if l[0] > 0 && strings.ToUpper(word) == word {
				continue
			}
			b.WriteString(d[last:l[0]])
			b.WriteString("`" + names[word] + "`")
			last = l[1]
		}
		b.WriteString(d[last:])
		rows[i].Description = b.String()
	}
}
