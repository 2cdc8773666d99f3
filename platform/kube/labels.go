package kube

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The labels on everything faasbench creates.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "faasbench"
	LabelRunID     = "faasbench.dev/run-id"
	LabelFunction  = "faasbench.dev/function"
	LabelWorkload  = "faasbench.dev/workload"
	LabelLanguage  = "faasbench.dev/language"
)

// Labels are the labels of an object created for function in run runID
// (function may be empty for objects shared by a run).
func Labels(runID, function string) map[string]string {
	l := map[string]string{LabelManagedBy: ManagedBy}
	if runID != "" {
		l[LabelRunID] = runID
	}
	if function != "" {
		l[LabelFunction] = function
	}
	return l
}

// Selector selects what faasbench created: in run runID when it is not
// empty, for function when it is not empty.
func Selector(runID, function string) string {
	return labels.SelectorFromSet(Labels(runID, function)).String()
}

// ValidateName checks a function name is usable as a Kubernetes object
// name and label value (a DNS-1035 label: lower case, digits, '-', starting
// with a letter, at most 63 characters).
func ValidateName(name string) error {
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return fmt.Errorf("function name %q cannot name a Kubernetes object: %s", name, strings.Join(errs, "; "))
	}
	return nil
}

var invalidLabel = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// LabelValue makes s a valid label value (run ids contain ':' and the like).
func LabelValue(s string) string {
	v := strings.Trim(invalidLabel.ReplaceAllString(s, "-"), "-._")
	if len(v) > 63 {
		v = strings.Trim(v[:63], "-._")
	}
	return v
}

func namespaceObject(name, runID string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: Labels(LabelValue(runID), "")}}
}
