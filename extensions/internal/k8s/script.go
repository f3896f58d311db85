package k8s

import (
	"encoding/base64"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// checkScript finds the script's ConfigMap and checks that it holds the script, the
// scenario (MQ_SCENARIO) and every local file the script imports.
func (p *problems) checkScript(tp string, m *Manifests, sc K6Script, scenario string) *ConfigMap {
	if sc.ConfigMap == nil || sc.ConfigMap.Name == "" {
		p.add("%s: spec.script.configMap: missing (the generator ships the script in a ConfigMap)", tp)
		return nil
	}
	var cm *ConfigMap
	for i := range m.ConfigMaps {
		if m.ConfigMaps[i].Metadata.Name == sc.ConfigMap.Name {
			cm = &m.ConfigMaps[i]
		}
	}
	if cm == nil {
		p.add("%s: spec.script.configMap.name: no ConfigMap %s in these manifests", tp, sc.ConfigMap.Name)
		return nil
	}
	files := cm.Files()
	need := []string{sc.ConfigMap.File}
	if scenario != "" {
		need = append(need, path.Base(scenario))
	}
	for len(need) > 0 {
		f := need[0]
		need = need[1:]
		body, ok := files[f]
		if !ok {
			p.add("ConfigMap %s: has no key %q (needed by the TestRun)", cm.Metadata.Name, f)
			continue
		}
		if !strings.HasSuffix(f, ".js") {
			continue
		}
		for _, imp := range imports(string(body)) {
			switch key, msg := localImport(imp); {
			case msg != "":
				p.add("ConfigMap %s: %s imports %q: %s", cm.Metadata.Name, f, imp, msg)
			case key != "":
				need = append(need, key)
			}
		}
	}
	return cm
}

var importRE = regexp.MustCompile(`(?m)(?:^\s*import\s+(?:[^'";]*?\s+from\s+)?|\brequire\s*\(\s*|\bopen\s*\(\s*)['"]([^'"]+)['"]`)

// imports lists the module specifiers and open()ed paths of a script.
func imports(js string) []string {
	var out []string
	for _, m := range importRE.FindAllStringSubmatch(js, -1) {
		out = append(out, m[1])
	}
	return out
}

// localImport turns an import into the ConfigMap key it needs ("" for k6's own modules),
// or explains why it cannot be served from a flat ConfigMap at /test.
func localImport(spec string) (key, msg string) {
	switch {
	case spec == "k6" || strings.HasPrefix(spec, "k6/"):
		return "", ""
	case strings.Contains(spec, "://"):
		return "", "a remote module: the runners would download it (vendor it into the ConfigMap)"
	}
	clean := path.Clean(strings.TrimPrefix(spec, ScriptDir+"/"))
	if strings.Contains(clean, "/") || !configMapKey.MatchString(clean) {
		return "", "not a file beside the script (a ConfigMap mounted at " + ScriptDir + " is flat)"
	}
	return clean, ""
}

// Files is the ConfigMap's content as the pods see it under /test.
func (cm ConfigMap) Files() map[string][]byte {
	out := map[string][]byte{}
	for k, v := range cm.Data {
		out[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		if b, err := base64.StdEncoding.DecodeString(v); err == nil {
			out[k] = b
		}
	}
	return out
}

func (p *problems) checkConfigMap(cm ConfigMap, script string) {
	where := "ConfigMap " + cm.Metadata.Name
	size := 0
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		if !configMapKey.MatchString(k) || len(k) > 253 || k == "." || k == ".." {
			p.add("%s: data: %q is not a valid key (letters, digits, '-', '_', '.')", where, k)
		}
		size += len(k) + len(cm.Data[k])
	}
	for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
		if _, dup := cm.Data[k]; dup {
			p.add("%s: binaryData: %q is also in data", where, k)
		}
		b, err := base64.StdEncoding.DecodeString(cm.BinaryData[k])
		if err != nil {
			p.add("%s: binaryData.%s: not base64: %v", where, k, err)
		}
		size += len(k) + len(b)
	}
	if size > MaxConfigMapBytes {
		p.add("%s: %d bytes of data, over the API server's limit of %d (1 MiB): use a smaller payload file", where, size, MaxConfigMapBytes)
	}
	if _, ok := cm.Data[script]; !ok && script != "" {
		p.add("%s: data: the script %q must be text (data, not binaryData)", where, script)
	}
}
