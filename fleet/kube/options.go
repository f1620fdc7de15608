package kube

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options configures the Kubernetes engine: where the agents run and
// what their pods look like.
type Options struct {
	// Namespace the Job and its Secret are created in. Empty: the
	// namespace of the kubeconfig context, or of the pod the coordinator
	// runs in when it uses the in-cluster config, else "default". The dry
	// run leaves an empty namespace out of the manifests.
	Namespace string
	// Image is the container image holding the trigger binary as its
	// entrypoint (required).
	Image string
	// ImagePullPolicy is Always, IfNotPresent or Never; empty leaves
	// Kubernetes' default (Always for a :latest tag, else IfNotPresent).
	ImagePullPolicy corev1.PullPolicy
	// ServiceAccount the agent pods run as; empty: the namespace's
	// default. The agents never call the API: its token is not mounted.
	ServiceAccount string
	// Resources are the agent container's requests and limits.
	Resources Resources
	// NodeSelector restricts the nodes the agent pods may run on.
	NodeSelector map[string]string
	// Kubeconfig is the kubeconfig file; Context a context in it. Both
	// empty: the in-cluster config when the coordinator runs in a pod,
	// else the usual loading rules ($KUBECONFIG, ~/.kube/config).
	Kubeconfig string
	Context    string
	// Clientset, when set, is used instead of building a client from the
	// kubeconfig (tests pass a fake one). Namespace then defaults to
	// "default".
	Clientset kubernetes.Interface
	// PollInterval is how often WaitPodsRunning lists the pods; 0: 1 s.
	PollInterval time.Duration
	// DeadlineMargin is added to the run's max duration to give the Job's
	// activeDeadlineSeconds, after which Kubernetes kills agents that did
	// not stop by themselves; 0: DefaultDeadlineMargin.
	DeadlineMargin time.Duration
}

// Resources are Kubernetes quantities ("500m", "1", "256Mi"); an empty
// one is not set.
type Resources struct {
	CPURequest    string
	CPULimit      string
	MemoryRequest string
	MemoryLimit   string
}

// DefaultDeadlineMargin is the time past the run's max duration after
// which Kubernetes stops the agents itself. The Job's deadline counts from
// its creation, which comes after the run's start, so this only has to
// cover an agent's own shutdown.
const DefaultDeadlineMargin = 60 * time.Second

// defaultPollInterval is PollInterval's default.
const defaultPollInterval = time.Second

// validate checks what Manifests needs from the options.
func (o Options) validate() error {
	if strings.TrimSpace(o.Image) == "" {
		return errors.New("kubernetes: an image is required (--image): one whose entrypoint is the trigger binary")
	}
	switch o.ImagePullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return fmt.Errorf("kubernetes: image pull policy %q: want Always, IfNotPresent or Never", o.ImagePullPolicy)
	}
	if o.DeadlineMargin < 0 {
		return fmt.Errorf("kubernetes: deadline margin %s is negative", o.DeadlineMargin)
	}
	_, err := o.Resources.requirements()
	return err
}

// requirements parses the quantities into the container's requirements.
func (r Resources) requirements() (corev1.ResourceRequirements, error) {
	var req corev1.ResourceRequirements
	set := func(list *corev1.ResourceList, name corev1.ResourceName, what, s string) error {
		if s == "" {
			return nil
		}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return fmt.Errorf("kubernetes: %s %q: %w", what, s, err)
		}
		if q.Sign() <= 0 {
			return fmt.Errorf("kubernetes: %s %q is not positive", what, s)
		}
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		(*list)[name] = q
		return nil
	}
	for _, f := range []struct {
		list *corev1.ResourceList
		name corev1.ResourceName
		what string
		s    string
	}{
		{&req.Requests, corev1.ResourceCPU, "cpu request", r.CPURequest},
		{&req.Limits, corev1.ResourceCPU, "cpu limit", r.CPULimit},
		{&req.Requests, corev1.ResourceMemory, "memory request", r.MemoryRequest},
		{&req.Limits, corev1.ResourceMemory, "memory limit", r.MemoryLimit},
	} {
		if err := set(f.list, f.name, f.what, f.s); err != nil {
			return req, err
		}
	}
	for name, lim := range req.Limits {
		if r, ok := req.Requests[name]; ok && r.Cmp(lim) > 0 {
			return req, fmt.Errorf("kubernetes: %s request %s is above its limit %s", name, r.String(), lim.String())
		}
	}
	return req, nil
}

// client returns the clientset and the namespace to use: the override
// with "default", the in-cluster config with the pod's namespace, or the
// kubeconfig with its context's namespace. Building it sends nothing.
func (o Options) client() (kubernetes.Interface, string, error) {
	if o.Clientset != nil {
		return o.Clientset, "default", nil
	}
	if o.Kubeconfig == "" && o.Context == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			cs, err := kubernetes.NewForConfig(withRate(cfg))
			if err != nil {
				return nil, "", fmt.Errorf("kubernetes: in-cluster client: %w", err)
			}
			return cs, inClusterNamespace(), nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes: kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes: kubeconfig namespace: %w", err)
	}
	cs, err := kubernetes.NewForConfig(withRate(cfg))
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes: client: %w", err)
	}
	return cs, ns, nil
}

// withRate raises client-go's default client-side rate limit (5 requests
// per second, bursts of 10), which diagnosing many waiting agents at once
// could reach, to 20 per second with bursts of 40.
func withRate(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 20, 40
	return cfg
}

// inClusterNamespace is the namespace of the pod this process runs in.
func inClusterNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if ns := strings.TrimSpace(string(b)); err == nil && ns != "" {
		return ns
	}
	return "default"
}
