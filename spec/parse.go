package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FieldError is one problem with a spec, at a field path and a YAML line.
type FieldError struct {
	File string
	Line int // 0 when the field is absent from the file
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if loc != "" {
		loc += ": "
	}
	return fmt.Sprintf("%s%s: %s", loc, e.Path, e.Msg)
}

// Errors is every problem found; a spec with any is not run.
type Errors []*FieldError

// MaxErrorsShown bounds how many problems an Errors prints: a file of a
// million unknown keys printed 84 MB of errors before (#60); the rest are
// counted.
const MaxErrorsShown = 20

func (es Errors) Error() string {
	n := min(len(es), MaxErrorsShown)
	parts := make([]string, 0, n+1)
	for _, e := range es[:n] {
		parts = append(parts, e.Error())
	}
	if more := len(es) - n; more > 0 {
		parts = append(parts, fmt.Sprintf("... and %d more problems (fix these first)", more))
	}
	return strings.Join(parts, "\n")
}

// maxKeyShown bounds how much of a key an error quotes.
const maxKeyShown = 80

// shownKey is a key as an error quotes it: at most maxKeyShown bytes.
func shownKey(k string) string {
	if len(k) <= maxKeyShown {
		return k
	}
	k = k[:maxKeyShown]
	for !utf8.ValidString(k) {
		k = k[:len(k)-1]
	}
	return k + "…"
}

// Parsed is a spec with the line of every field it came from.
type Parsed struct {
	Spec  Spec
	File  string
	lines map[string]int
}

// Line returns the YAML line of a field path, or of its nearest parent.
func (p *Parsed) Line(path string) int {
	for {
		if l, ok := p.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
}

func (p *Parsed) errorf(path, format string, args ...any) *FieldError {
	return &FieldError{File: p.File, Line: p.Line(path), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// ParseFile reads and parses a spec file.
func ParseFile(path string) (*Parsed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return Parse(path, b)
}

// Parse checks the YAML's shape against the spec types (unknown fields,
// wrong types), decodes it and applies defaults. It does not check values:
// see Validate.
func Parse(file string, b []byte) (*Parsed, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&root); err != nil {
		return nil, Errors{{File: file, Path: "(document)", Msg: "not valid YAML: " + err.Error()}}
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return nil, Errors{{File: file, Line: second.Line, Path: "(document)", Msg: "a second YAML document (after ---): a spec is one document, and the second would be ignored"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, Errors{{File: file, Path: "(document)", Msg: "not valid YAML: " + err.Error()}}
	}
	p := &Parsed{File: file, lines: map[string]int{}}
	if len(root.Content) == 0 {
		return nil, Errors{{File: file, Path: "(document)", Msg: "empty spec"}}
	}
	var errs Errors
	p.check(root.Content[0], reflect.TypeOf(Spec{}), "", &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	if err := root.Content[0].Decode(&p.Spec); err != nil {
		return nil, Errors{{File: file, Path: "(document)", Msg: err.Error()}}
	}
	// A zero given is not a default asked for: 0s would become 60 s.
	if _, given := p.lines["load.timeout"]; given && p.Spec.Load.Timeout == 0 {
		return nil, Errors{p.errorf("load.timeout", "0s: want at least 1ms (leave it out for the default, %v)", DefaultTimeout)}
	}
	p.Spec.ApplyDefaults()
	return p, nil
}

var durationType = reflect.TypeOf(Duration(0))

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!int":
		return "a number"
	case "!!float":
		return "a number"
	case "!!bool":
		return "true/false"
	case "!!null":
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}

// check walks the node against type t, recording lines and shape errors.
func (p *Parsed) check(n *yaml.Node, t reflect.Type, path string, errs *Errors) {
	if path != "" {
		p.lines[path] = n.Line
	}
	bad := func(want string) {
		*errs = append(*errs, &FieldError{File: p.File, Line: n.Line, Path: pathOr(path), Msg: fmt.Sprintf("want %s, got %s", want, kindName(n))})
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			bad("a duration such as \"3s\"")
			return
		}
		if _, err := time.ParseDuration(n.Value); err != nil {
			*errs = append(*errs, &FieldError{File: p.File, Line: n.Line, Path: path, Msg: fmt.Sprintf("%q is not a duration (use e.g. 500ms, 3s, 2m)", n.Value)})
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			bad("a mapping")
			return
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			if tag != "" && tag != "-" {
				fields[tag] = t.Field(i).Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				known := make([]string, 0, len(fields))
				for f := range fields {
					known = append(known, f)
				}
				sort.Strings(known)
				*errs = append(*errs, &FieldError{File: p.File, Line: k.Line, Path: join(path, shownKey(k.Value)),
					Msg: fmt.Sprintf("unknown field (known: %s)", strings.Join(known, ", "))})
				continue
			}
			p.check(v, ft, join(path, k.Value), errs)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			bad("a list")
			return
		}
		for i, item := range n.Content {
			p.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			bad("a mapping")
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p.check(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), errs)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			bad("a whole number")
		}
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			bad("a number")
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			bad("true or false")
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			bad("a string")
		}
	default:
		*errs = append(*errs, &FieldError{File: p.File, Line: n.Line, Path: path, Msg: "unsupported field type " + t.String()})
	}
}

func pathOr(p string) string {
	if p == "" {
		return "(document)"
	}
	return p
}

// AsErrors unwraps a spec error list, if err is one.
func AsErrors(err error) (Errors, bool) {
	var es Errors
	ok := errors.As(err, &es)
	return es, ok
}
