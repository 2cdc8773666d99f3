package spec

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// lookup resolves ${VAR} in the spec: data.NAME and upstream.url are the
// run's own; anything else comes from faasbench's environment.
func (p *Parsed) lookup(k Known) func(string) (string, bool) {
	env := k.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	return func(name string) (string, bool) {
		if d, ok := strings.CutPrefix(name, "data."); ok {
			for _, ds := range p.Spec.Data {
				if ds.Name == d {
					return "(data " + d + ")", true
				}
			}
			return "", false
		}
		if name == "upstream.url" {
			return "(upstream)", p.Spec.Services.Upstream
		}
		return env(name)
	}
}

// validateServices checks services.listen: an IP address (no name to
// resolve: what listens must be exactly where the user said) and a port.
func (p *Parsed) validateServices(add func(path, format string, args ...any)) {
	l := p.Spec.Services.Listen
	if l == "" {
		return
	}
	host, port, err := net.SplitHostPort(l)
	if err != nil || net.ParseIP(host) == nil {
		add("services.listen", "%q: want IP:PORT (port 0 for any)", l)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		add("services.listen", "%q: port %q is not a port number", l, port)
	}
	if !p.Spec.Services.Upstream {
		add("services.listen", "%q is set but no service is (services.upstream)", l)
	}
}

func (p *Parsed) validateData(add func(path, format string, args ...any)) {
	names := map[string]bool{}
	for i, d := range p.Spec.Data {
		path := fmt.Sprintf("data[%d]", i)
		if !envNameRE.MatchString(d.Name) {
			add(path+".name", "%q: want a name of letters, digits and _", d.Name)
		}
		if names[d.Name] {
			add(path+".name", "%q is given twice", d.Name)
		}
		names[d.Name] = true
		switch d.Kind {
		case "images":
			if d.Count < 1 || d.Count > 100000 || d.Side < 0 || d.Side > 8192 {
				add(path, "images: count %d, side %d: want 1..100000 and 1..8192", d.Count, d.Side)
			}
		case "corpus":
			if d.Docs < 1 || d.Docs > 100000 || d.Words < 0 {
				add(path, "corpus: docs %d, words %d: want 1..100000 documents", d.Docs, d.Words)
			}
		case "text":
			if len(d.SizesMB) == 0 {
				add(path+".sizes_mb", "required for text: file sizes in MB, e.g. [10, 25, 50, 100]")
			}
			for j, mb := range d.SizesMB {
				if !(mb > 0 && mb <= 4096) {
					add(fmt.Sprintf("%s.sizes_mb[%d]", path, j), "%v: want (0, 4096] MB", mb)
				}
			}
		default:
			add(path+".kind", "%q: want images, corpus or text", d.Kind)
		}
	}
}
