package spec

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ParseFileWithOverrides reads a spec and applies overrides before
// checking it: each "path=value" sets a field (load.duration=30s,
// vary.replicas=[1,2,4,8,16], functions[0].replicas=2); the value is
// YAML, so lists and mappings work. This is how an example's scaled-down
// default is restored to the seed's original grid.
func ParseFileWithOverrides(path string, sets []string) (*Parsed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if len(sets) == 0 {
		return Parse(path, b)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil || len(root.Content) == 0 {
		return Parse(path, b) // reports the YAML error
	}
	for _, s := range sets {
		if err := override(root.Content[0], s); err != nil {
			return nil, Errors{{File: path, Path: "--set " + s, Msg: err.Error()}}
		}
	}
	out, err := yaml.Marshal(&root)
	if err != nil {
		return nil, fmt.Errorf("spec: --set: %w", err)
	}
	p, err := Parse(path+" (with --set)", out)
	if err != nil {
		return nil, err
	}
	p.File = path
	return p, nil
}

// override sets one "a.b[i].c=value" in the document.
func override(doc *yaml.Node, set string) error {
	key, val, ok := strings.Cut(set, "=")
	if !ok || key == "" {
		return fmt.Errorf("want path=value")
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(val), &v); err != nil {
		return fmt.Errorf("value %q is not YAML: %w", val, err)
	}
	value := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
	if len(v.Content) > 0 {
		value = v.Content[0]
	}
	n := doc
	parts := strings.Split(key, ".")
	for i, part := range parts {
		name, idx := part, -1
		if j := strings.IndexByte(part, '['); j >= 0 && strings.HasSuffix(part, "]") {
			k, err := strconv.Atoi(part[j+1 : len(part)-1])
			if err != nil || k < 0 {
				return fmt.Errorf("%q: want name[index]", part)
			}
			name, idx = part[:j], k
		}
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", strings.Join(parts[:i], "."))
		}
		var child *yaml.Node
		for c := 0; c+1 < len(n.Content); c += 2 {
			if n.Content[c].Value == name {
				child = n.Content[c+1]
			}
		}
		last := i == len(parts)-1
		if child == nil {
			if idx >= 0 {
				return fmt.Errorf("%s: no such list", strings.Join(parts[:i+1], "."))
			}
			child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if last {
				child = value
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, child)
			if last {
				return nil
			}
			n = child
			continue
		}
		if idx >= 0 {
			if child.Kind != yaml.SequenceNode || idx >= len(child.Content) {
				return fmt.Errorf("%s: no item %d", name, idx)
			}
			if last {
				child.Content[idx] = value
				return nil
			}
			n = child.Content[idx]
			continue
		}
		if last {
			for c := 0; c+1 < len(n.Content); c += 2 {
				if n.Content[c].Value == name {
					n.Content[c+1] = value
				}
			}
			return nil
		}
		n = child
	}
	return nil
}
