package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoContexts = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://127.0.0.1:6443"}
- name: b
  cluster: {server: "https://10.0.0.2:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: ca
  context: {cluster: a, user: u, namespace: bench}
- name: cb
  context: {cluster: b, user: u}
current-context: ca
`

func TestConnectReadsTheKubeconfigAndContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Connect(Options{Kubeconfig: p})
	if err != nil || c.Config.Host != "https://127.0.0.1:6443" || c.Namespace != "bench" || c.Source != p {
		t.Fatalf("current context: %+v %v", c, err)
	}
	c, err = Connect(Options{Kubeconfig: p, Context: "cb"})
	if err != nil || c.Config.Host != "https://10.0.0.2:6443" || c.Namespace != "default" {
		t.Fatalf("context cb: %+v %v", c, err)
	}
	if c, _ = Connect(Options{Kubeconfig: p, Context: "cb", Namespace: "x"}); c.Namespace != "x" {
		t.Errorf("namespace option: %q", c.Namespace)
	}
	t.Setenv("KUBECONFIG", p)
	if c, err = Connect(Options{}); err != nil || !strings.Contains(c.Source, "$KUBECONFIG") {
		t.Errorf("from $KUBECONFIG: %+v %v", c, err)
	}
	if _, err = Connect(Options{Kubeconfig: p, Context: "nope"}); err == nil || !strings.Contains(err.Error(), `context "nope"`) {
		t.Errorf("unknown context: %v", err)
	}
	if _, err = Connect(Options{Kubeconfig: filepath.Join(t.TempDir(), "missing")}); err == nil || !strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("missing file: %v", err)
	}
}

func TestMinorVersions(t *testing.T) {
	for _, c := range []struct {
		major, minor string
		want         Minor
		atLeast122   bool
	}{{"1", "21", Minor{1, 21}, false}, {"1", "22+", Minor{1, 22}, true}, {"1", "34", Minor{1, 34}, true}, {"2", "0", Minor{2, 0}, true}} {
		m, err := ParseMinor(c.major, c.minor)
		if err != nil || m != c.want || m.AtLeast(Minor{1, 22}) != c.atLeast122 {
			t.Errorf("%s.%s: %v %v", c.major, c.minor, m, err)
		}
	}
	if _, err := ParseMinor("1", "x"); err == nil {
		t.Error("1.x parsed")
	}
	if (Minor{1, 22}).String() != "1.22" || (Minor{}).String() != "" {
		t.Error("String")
	}
}
