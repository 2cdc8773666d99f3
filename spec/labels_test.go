package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLabelsAreKeptAndChecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ParseFileWithOverrides(path, []string{"labels.rule=003-workers", "labels.rule_sha256=ab12"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(known); err != nil {
		t.Fatal(err)
	}
	if got := p.Spec.Labels; got["rule"] != "003-workers" || got["rule_sha256"] != "ab12" || len(got) != 2 {
		t.Fatalf("labels %v: want the two set", got)
	}
	for _, tc := range []struct{ labels, want string }{
		{`{Rule: x}`, `labels.Rule: "Rule": a label's key is lower-case`},
		{`{rule: "a` + "\\n" + `b"}`, "labels.rule: a label's value is one line of printable text"},
		{`{rule: "` + strings.Repeat("x", MaxLabelValueBytes+1) + `"}`, "labels.rule: 257 bytes: a label's value is at most 256"},
	} {
		p, err := Parse("q.yaml", []byte(good+"labels: "+tc.labels+"\n"))
		if err == nil {
			err = p.Validate(known)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("labels %.40s: got %v, want %q", tc.labels, err, tc.want)
		}
	}
}
