//go:build kube

package fission_test

import (
	"context"
	"encoding/base64"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/kube"
)

// buildPass stands for Fission's buildermgr (pkg/buildermgr/package_reconciler.go): a Package with no
// build status gets one from its archives (setInitialBuildStatus: a deployment archive "none", a source
// "pending", neither "failed" with "Both deploy and source archive are empty"), written through the
// status subresource; a pending one is built (running, then succeeded with the builder's log, or failed
// when the source asks for it: a literal holding "fail the build", standing for a build.sh that exits 1).
func buildPass(ctx context.Context, cl *kube.Cluster) error {
	pkgs := cl.Dynamic.Resource(fission.PackageGVR).Namespace(cl.Namespace)
	l, err := pkgs.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range l.Items {
		u := &l.Items[i]
		status, _, _ := unstructured.NestedString(u.Object, "status", "buildstatus")
		src, _, _ := unstructured.NestedString(u.Object, "spec", "source", "literal")
		dep, _, _ := unstructured.NestedString(u.Object, "spec", "deployment", "literal")
		var next, log string
		switch {
		case status == "" && dep != "":
			next = "none"
		case status == "" && src != "":
			next = "pending"
		case status == "":
			next, log = "failed", "Both deploy and source archive are empty"
		case status == "pending":
			next = "running"
		case status == "running":
			b, _ := base64.StdEncoding.DecodeString(src)
			next, log = "succeeded", "+ go build -buildmode=plugin -o /packages/deploy .\n"
			if strings.Contains(string(b), "fail the build") {
				next, log = "failed", "+ go build -buildmode=plugin -o /packages/deploy .\n./function.go:1:1: expected 'package', found fail\nerror building source package: exit status 1\n"
			}
		default:
			continue
		}
		if err := unstructured.SetNestedField(u.Object, map[string]any{"buildstatus": next, "buildlog": log}, "status"); err != nil {
			return err
		}
		if _, err := pkgs.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
