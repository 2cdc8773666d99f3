package kubetest

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// deploy/kube/test.sh downloads the modules the kube tests read before they run offline: the same list.
func TestTheKubeTierDownloadsTheModulesTheTestsRead(t *testing.T) {
	b, err := os.ReadFile("../../../deploy/kube/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^KUBE_TEST_MODULES=\(([^)]*)\)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("deploy/kube/test.sh has no KUBE_TEST_MODULES=(...) line")
	}
	got := strings.Fields(string(m[1]))
	if !slices.Equal(got, Modules) {
		t.Errorf("deploy/kube/test.sh downloads %v, the tests read %v", got, Modules)
	}
}
