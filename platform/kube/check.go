package kube

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	authv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Need is one permission an adapter needs: verb on a resource in the
// cluster's namespace ("" for cluster-scoped resources).
type Need struct {
	Group, Resource, Subresource, Verb string
	ClusterScoped                      bool
	// Optional needs only make a warning (e.g. listing nodes for the
	// fingerprint).
	Optional bool
}

// Requirements are what a platform needs of a cluster.
type Requirements struct {
	// APIs must be served (a platform's CRDs: group/version/resource).
	APIs  []schema.GroupVersionResource
	Needs []Need
	// Below, when set, is the first Kubernetes minor version the platform
	// cannot run on (e.g. 1.22), and BelowWhy the reason.
	Below    Minor
	BelowWhy string
}

// Minor is a Kubernetes version's major and minor number (1.22).
type Minor struct{ Major, Minor int }

// String is "1.22" ("" for the zero Minor).
func (m Minor) String() string {
	if m == (Minor{}) {
		return ""
	}
	return fmt.Sprintf("%d.%d", m.Major, m.Minor)
}

// AtLeast reports whether m is o or later.
func (m Minor) AtLeast(o Minor) bool {
	return m.Major > o.Major || (m.Major == o.Major && m.Minor >= o.Minor)
}

// ParseMinor reads a server's version.Info major and minor ("1", "22+").
func ParseMinor(major, minor string) (Minor, error) {
	ma, err1 := strconv.Atoi(strings.TrimRight(major, "+"))
	mi, err2 := strconv.Atoi(strings.TrimRight(minor, "+"))
	if err1 != nil || err2 != nil {
		return Minor{}, fmt.Errorf("kubernetes version %q.%q is not numeric", major, minor)
	}
	return Minor{ma, mi}, nil
}

// ServerMinor is the cluster's Kubernetes version.
func (c *Cluster) ServerMinor() (Minor, error) {
	v, err := c.Client.Discovery().ServerVersion()
	if err != nil {
		return Minor{}, fmt.Errorf("kubernetes version: %w", err)
	}
	return ParseMinor(v.Major, v.Minor)
}

// CheckBelow is nil when the cluster runs a version below req.Below (or
// req has no bound), else the reason the platform cannot run there.
func (c *Cluster) CheckBelow(req Requirements) error {
	if req.Below == (Minor{}) {
		return nil
	}
	m, err := c.ServerMinor()
	if err != nil {
		return err
	}
	if m.AtLeast(req.Below) {
		return fmt.Errorf("kubernetes %s: %s (it runs only below %s)", m, req.BelowWhy, req.Below)
	}
	return nil
}

// CheckReport is a preflight's findings.
type CheckReport struct {
	Server    string   `json:"server"`
	Version   string   `json:"version,omitempty"`
	Namespace string   `json:"namespace"`
	Problems  []string `json:"problems"`
	Warnings  []string `json:"warnings"`
}

// OK is true when nothing stops a run.
func (r CheckReport) OK() bool { return len(r.Problems) == 0 }

// Check is the preflight: can the server be reached, which version is it,
// does the namespace exist, are the platform's APIs served, and may this
// user do what the platform needs. Every problem is a sentence.
func (c *Cluster) Check(ctx context.Context, req Requirements) CheckReport {
	r := CheckReport{Server: c.Config.Host, Namespace: c.Namespace, Problems: []string{}, Warnings: []string{}}
	v, err := c.Client.Discovery().ServerVersion()
	if err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("cannot reach the Kubernetes API at %s (from %s): %v", c.Config.Host, c.Source, err))
		return r
	}
	r.Version = v.GitVersion
	if err := c.CheckBelow(req); err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	if _, err := c.Client.CoreV1().Namespaces().Get(ctx, c.Namespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("namespace %s does not exist: faasbench will create it and delete it afterwards", c.Namespace))
	} else if err != nil && !apierrors.IsForbidden(err) {
		r.Problems = append(r.Problems, fmt.Sprintf("namespace %s: %v", c.Namespace, err))
	}
	for _, api := range req.APIs {
		res, err := c.Client.Discovery().ServerResourcesForGroupVersion(api.GroupVersion().String())
		found := false
		if err == nil {
			for _, x := range res.APIResources {
				found = found || x.Name == api.Resource
			}
		}
		if !found {
			r.Problems = append(r.Problems, fmt.Sprintf("the API %s (%s) is not served: is the platform installed in this cluster?", api.Resource, api.GroupVersion()))
		}
	}
	for _, n := range req.Needs {
		ns := c.Namespace
		if n.ClusterScoped {
			ns = ""
		}
		rev := &authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authv1.ResourceAttributes{
			Namespace: ns, Verb: n.Verb, Group: n.Group, Resource: n.Resource, Subresource: n.Subresource}}}
		got, err := c.Client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, rev, metav1.CreateOptions{})
		what := n.Resource
		if n.Subresource != "" {
			what += "/" + n.Subresource
		}
		if n.Group != "" {
			what += "." + n.Group
		}
		where := "in namespace " + c.Namespace
		if n.ClusterScoped {
			where = "cluster-wide"
		}
		switch {
		case err != nil:
			r.Problems = append(r.Problems, fmt.Sprintf("cannot check whether we may %s %s %s: %v", n.Verb, what, where, err))
		case !got.Status.Allowed && n.Optional:
			r.Warnings = append(r.Warnings, fmt.Sprintf("not allowed to %s %s %s: %s", n.Verb, what, where, reason(got.Status)))
		case !got.Status.Allowed:
			r.Problems = append(r.Problems, fmt.Sprintf("not allowed to %s %s %s: %s", n.Verb, what, where, reason(got.Status)))
		}
	}
	return r
}

func reason(s authv1.SubjectAccessReviewStatus) string {
	if s.Reason != "" {
		return s.Reason
	}
	return "ask the cluster's administrator for this permission"
}

// WorkloadNeeds are the permissions every adapter that runs functions as
// Deployments needs (watching, scaling, cleaning up).
func WorkloadNeeds() []Need {
	var out []Need
	for _, v := range []string{"create", "get", "list", "watch", "delete"} {
		out = append(out, Need{Group: "apps", Resource: "deployments", Verb: v}, Need{Resource: "services", Verb: v})
	}
	out = append(out,
		Need{Group: "apps", Resource: "deployments", Subresource: "scale", Verb: "update"},
		Need{Resource: "pods", Verb: "list"}, Need{Resource: "pods", Verb: "watch"},
		Need{Resource: "nodes", Verb: "list", ClusterScoped: true, Optional: true},
		Need{Resource: "namespaces", Verb: "create", ClusterScoped: true, Optional: true},
	)
	return out
}

// ObserveNeeds are the permissions watching a run's functions needs.
func ObserveNeeds() []Need {
	return []Need{
		{Resource: "pods", Verb: "list"}, {Resource: "pods", Verb: "watch"},
		{Group: "apps", Resource: "deployments", Verb: "list"}, {Group: "apps", Resource: "deployments", Verb: "watch"},
		{Resource: "nodes", Verb: "list", ClusterScoped: true, Optional: true},
	}
}

// ResourceNeeds are verbs on each of a platform's resources.
func ResourceNeeds(kinds []schema.GroupVersionResource, verbs ...string) []Need {
	var out []Need
	for _, k := range kinds {
		for _, v := range verbs {
			out = append(out, Need{Group: k.Group, Resource: k.Resource, Verb: v})
		}
	}
	return out
}

// CRDRequirements are the requirements of a platform whose functions are
// its own resources: the APIs served, and the verbs a run uses on them.
func CRDRequirements(kinds []schema.GroupVersionResource) Requirements {
	needs := append(ObserveNeeds(), ResourceNeeds(kinds, "create", "get", "list", "update", "patch", "delete")...)
	return Requirements{APIs: kinds, Needs: needs}
}
