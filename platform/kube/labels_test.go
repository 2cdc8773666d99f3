package kube

import (
	"strings"
	"testing"
)

func TestLabelsAndSelectors(t *testing.T) {
	if got := Selector("r1", "fn"); got != "app.kubernetes.io/managed-by=faasbench,faasbench.dev/function=fn,faasbench.dev/run-id=r1" {
		t.Errorf("selector %q", got)
	}
	if got := Selector("", ""); got != "app.kubernetes.io/managed-by=faasbench" {
		t.Errorf("everything faasbench made: %q", got)
	}
	for in, want := range map[string]string{
		"quickstart-20261123T101500Z": "quickstart-20261123T101500Z",
		"a:b/c d":                     "a-b-c-d",
		"-x-":                         "x",
		strings.Repeat("a", 70) + "-": strings.Repeat("a", 63),
	} {
		if got := LabelValue(in); got != want {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
	if err := ValidateName("hello-go"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"Hello", "1fn", "a_b", strings.Repeat("a", 64)} {
		if err := ValidateName(bad); err == nil || !strings.Contains(err.Error(), "cannot name a Kubernetes object") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
