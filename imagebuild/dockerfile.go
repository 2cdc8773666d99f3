// Package imagebuild builds OCI images from the Dockerfiles faasbench generates for its users,
// without a Docker engine or a registry: each FROM maps through a documented table (base.go) to a
// root filesystem built from Debian's packages (or, for build stages, to the build machine's own
// Debian with its toolchains), and the other instructions apply as written: COPY from the build
// context or an earlier stage, RUN in a chroot over an overlay of the stage's base, WORKDIR, ENV,
// USER, EXPOSE, CMD, ENTRYPOINT. The result is an OCI image layout archive that containerd imports
// (`ctr images import`), so a real node runs what a user's `docker build` of the same file would.
package imagebuild

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Instruction is one Dockerfile instruction after line continuations are joined.
type Instruction struct {
	Line int    // 1-based line of its first physical line
	Cmd  string // upper case: FROM, RUN, COPY, ...
	// Args: the JSON array form's elements, or the words of the shell form (Shell keeps it whole).
	Args  []string
	Shell string            // the text after the command and its flags, as written
	JSON  bool              // exec (JSON array) form
	Flags map[string]string // --from=build, --chown=...
}

// Stage is a FROM and the instructions up to the next FROM.
type Stage struct {
	Index int
	Name  string // AS name, or ""
	From  string // image reference, or an earlier stage's name
	Line  int
	Steps []Instruction
}

// known is every instruction the builder applies; others are refused with their line.
var known = map[string]bool{"FROM": true, "RUN": true, "COPY": true, "WORKDIR": true, "ENV": true, "USER": true,
	"EXPOSE": true, "CMD": true, "ENTRYPOINT": true, "LABEL": true}

// Parse splits a Dockerfile into stages. Errors name the line.
func Parse(text string) ([]Stage, error) {
	var stages []Stage
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if strings.HasPrefix(next, "#") {
				continue // comment lines inside a continuation are dropped, as Docker does
			}
			line = strings.TrimSuffix(line, "\\") + " " + next
		}
		line = strings.TrimSuffix(line, "\\")
		in, err := parseInstruction(start, line)
		if err != nil {
			return nil, err
		}
		if in.Cmd == "FROM" {
			st := Stage{Index: len(stages), Line: start}
			switch {
			case len(in.Args) == 1:
			case len(in.Args) == 3 && strings.EqualFold(in.Args[1], "AS"):
				st.Name = strings.ToLower(in.Args[2])
			default:
				return nil, fmt.Errorf("line %d: FROM takes an image and an optional AS name: %q", start, line)
			}
			st.From = in.Args[0]
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			return nil, fmt.Errorf("line %d: %s before the first FROM", start, in.Cmd)
		}
		stages[len(stages)-1].Steps = append(stages[len(stages)-1].Steps, in)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("no FROM: not a Dockerfile")
	}
	return stages, nil
}

func parseInstruction(lineNo int, line string) (Instruction, error) {
	cmd, rest, _ := strings.Cut(line, " ")
	in := Instruction{Line: lineNo, Cmd: strings.ToUpper(cmd), Flags: map[string]string{}}
	if !known[in.Cmd] {
		return in, fmt.Errorf("line %d: instruction %s is not supported by faasbench's image builder", lineNo, in.Cmd)
	}
	rest = strings.TrimSpace(rest)
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		k, v, ok := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		if !ok {
			return in, fmt.Errorf("line %d: flag %s needs a value (--name=value)", lineNo, flag)
		}
		in.Flags[k] = v
		rest = strings.TrimSpace(after)
	}
	in.Shell = rest
	if strings.HasPrefix(rest, "[") {
		if err := json.Unmarshal([]byte(rest), &in.Args); err != nil {
			return in, fmt.Errorf("line %d: %s: the exec form is not a JSON array of strings: %w", lineNo, in.Cmd, err)
		}
		in.JSON = true
	} else {
		in.Args = strings.Fields(rest)
	}
	if len(in.Args) == 0 {
		return in, fmt.Errorf("line %d: %s has no arguments", lineNo, in.Cmd)
	}
	return in, nil
}

// envPairs reads ENV's two forms: `ENV K=V K2="V 2"` and `ENV K V with spaces`.
func envPairs(in Instruction) ([][2]string, error) {
	if !strings.Contains(in.Args[0], "=") {
		if len(in.Args) < 2 {
			return nil, fmt.Errorf("line %d: ENV %s has no value", in.Line, in.Args[0])
		}
		return [][2]string{{in.Args[0], strings.TrimSpace(strings.TrimPrefix(in.Shell, in.Args[0]))}}, nil
	}
	var out [][2]string
	for _, w := range shellWords(in.Shell) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("line %d: ENV %q is not KEY=value", in.Line, w)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// shellWords splits on blanks outside double quotes and drops the quotes (enough for ENV and LABEL).
func shellWords(s string) []string {
	var words []string
	var b strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote, have = !inQuote, true
		case (r == ' ' || r == '\t') && !inQuote:
			if have {
				words = append(words, b.String())
				b.Reset()
				have = false
			}
		default:
			b.WriteRune(r)
			have = true
		}
	}
	if have {
		words = append(words, b.String())
	}
	return words
}
