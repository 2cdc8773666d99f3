package kingress

import (
	"context"
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"knative.dev/networking/pkg/apis/networking/v1alpha1"
	ingressinformer "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/ingress"
	ingressreconciler "knative.dev/networking/pkg/client/injection/reconciler/networking/v1alpha1/ingress"
	"knative.dev/networking/pkg/status"
	serviceinformer "knative.dev/pkg/client/injection/kube/informers/core/v1/service"
	endpointsliceinformer "knative.dev/pkg/client/injection/kube/informers/discovery/v1/endpointslice"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	pkgreconciler "knative.dev/pkg/reconciler"
	"knative.dev/pkg/system"
)

// The gateway's Services in the system namespace (knative-serving): external traffic and
// cluster-local traffic, as net-kourier's kourier and kourier-internal.
const (
	ExternalService = "faasbench-ingress"
	InternalService = "faasbench-ingress-internal"
	// XDSAddress is where the controller serves Envoy: the pod's loopback.
	XDSAddress = "127.0.0.1:18000"
)

var isOurs = pkgreconciler.AnnotationFilterFunc(ingressreconciler.ClassAnnotationKey, Class, false)

// NewController is the injection constructor (knative.dev/pkg/injection/sharedmain runs it).
func NewController(ctx context.Context, _ configmap.Watcher) *controller.Impl {
	logger := logging.FromContext(ctx)
	ingresses := ingressinformer.Get(ctx)
	slices := endpointsliceinformer.Get(ctx)
	services := serviceinformer.Get(ctx)
	ns := system.Namespace()

	xds := NewXDS(ctx)
	r := &Reconciler{
		Backends:       listerBackends{services: services.Lister(), slices: slices.Lister()},
		XDS:            xds,
		ExternalDomain: ExternalService + "." + ns + ".svc.cluster.local",
		InternalDomain: InternalService + "." + ns + ".svc.cluster.local",
	}
	// Envoy starts with listeners and no routes until the first reconcile.
	if err := r.push(ctx); err != nil {
		logger.Fatalw("initial envoy configuration", "error", err)
	}
	go func() {
		if err := xds.Serve(ctx, XDSAddress); err != nil {
			logger.Fatalw("xds server", "error", err)
		}
	}()
	impl := ingressreconciler.NewImpl(ctx, r, Class, func(*controller.Impl) controller.Options {
		return controller.Options{PromoteFilterFunc: isOurs}
	})
	r.Tracker = impl.Tracker
	gateway := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: InternalService})
	prober := status.NewProber(logger.Named("status-manager"),
		TargetLister{Slices: func() ([]*discoveryv1.EndpointSlice, error) {
			return slices.Lister().EndpointSlices(ns).List(gateway)
		}},
		func(ing *v1alpha1.Ingress) {
			impl.EnqueueKey(types.NamespacedName{Namespace: ing.Namespace, Name: ing.Name})
		})
	prober.Start(ctx.Done())
	r.Prober = prober

	ingresses.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: isOurs,
		Handler:    controller.HandleAll(impl.Enqueue),
	})
	ingresses.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: isOurs,
		Handler:    cache.ResourceEventHandlerFuncs{DeleteFunc: impl.Tracker.OnDeletedObserver},
	})
	services.Informer().AddEventHandler(controller.HandleAll(
		controller.EnsureTypeMeta(impl.Tracker.OnChanged, corev1.SchemeGroupVersion.WithKind("Service"))))
	onSlice := controller.EnsureTypeMeta(impl.Tracker.OnChanged, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"))
	slices.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onSlice,
		DeleteFunc: onSlice,
		UpdateFunc: func(before, after interface{}) {
			// Only a change of ready addresses changes a cluster (net-kourier's filter).
			b, okb := before.(*discoveryv1.EndpointSlice)
			a, oka := after.(*discoveryv1.EndpointSlice)
			if okb && oka && equal(ReadyAddresses([]*discoveryv1.EndpointSlice{b}), ReadyAddresses([]*discoveryv1.EndpointSlice{a})) {
				return
			}
			onSlice(after)
		},
	})
	logger.Infof("faasbench ingress controller: class %s, xds on %s, gateway services %s and %s in %s",
		Class, XDSAddress, ExternalService, InternalService, ns)
	return impl
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// listerBackends reads Services and EndpointSlices from the informers' caches; a missing one is
// ErrBackendMissing.
type listerBackends struct {
	services corev1listers.ServiceLister
	slices   discoveryv1listers.EndpointSliceLister
}

func (l listerBackends) Service(ns, name string) (*corev1.Service, error) {
	s, err := l.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%w: %w", ErrBackendMissing, err)
	}
	return s, err
}

func (l listerBackends) EndpointSlices(ns, name string) ([]*discoveryv1.EndpointSlice, error) {
	return l.slices.EndpointSlices(ns).List(labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: name}))
}

// CheckEnv says what the controller needs in its environment (sharedmain reads SYSTEM_NAMESPACE).
func CheckEnv() error {
	if os.Getenv(system.NamespaceEnvKey) == "" {
		return errors.New(system.NamespaceEnvKey + " is not set (the namespace of the gateway's Services and config maps)")
	}
	return nil
}
