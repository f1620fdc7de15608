// Package kube is the Kubernetes engine of package fleet: a run's agents
// are the pods of one Indexed Job, each with its own key and the
// coordinator's certificate fingerprint from a Secret owned by that Job.
//
// Start creates the Job, then the Secret (owner-referenced to the Job, so
// deleting the Job removes it too). Every pod runs the image's entrypoint
// with `agent --coordinator URL --index $(JOB_COMPLETION_INDEX) --key-file
// /var/run/trigger/key-$(JOB_COMPLETION_INDEX)`; the kubelet expands the
// index from the pod's completion-index annotation. The keys are the
// Secret's, mounted read-only; the fingerprint comes from it as
// TRIGGER_AGENT_CERT_SHA256.
// The coordinator waits for the agents to join; Diagnose and
// WaitPodsRunning say why a pod has not. Stop deletes the Job (its pods
// go with it) and the Secret. The Job's activeDeadlineSeconds and
// ttlSecondsAfterFinished clean up after a coordinator that was killed
// before it could call Stop.
package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/trigger-test/trigger/fleet"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Engine runs a run's agents as a Kubernetes Indexed Job. It implements
// fleet.Engine; one Engine serves one run.
type Engine struct {
	opts      Options
	client    kubernetes.Interface
	namespace string
	poll      time.Duration

	mu      sync.Mutex
	started bool
	spec    fleet.AgentSpec
	job     string // the Job's name once Start began; "" before
	secret  string // the Secret's name once Start began; "" before

	// diagnoseTTL is how long Diagnose reuses what it read.
	diagnoseTTL time.Duration
	cacheMu     sync.Mutex
	cache       map[string]cacheEntry
}

var _ fleet.Engine = (*Engine)(nil)

// stopTimeout bounds Stop when the ctx it is given is already done.
const stopTimeout = 30 * time.Second

// diagnoseTTL is how long Diagnose reuses a pod list, an event or the Job
// it read.
const diagnoseTTL = time.Second

// New checks opts and builds the client (from opts.Clientset, the
// in-cluster config or the kubeconfig). It sends nothing to the cluster.
func New(opts Options) (*Engine, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	client, ns, err := opts.client()
	if err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		opts.Namespace = ns
	}
	poll := opts.PollInterval
	if poll <= 0 {
		poll = defaultPollInterval
	}
	return &Engine{opts: opts, client: client, namespace: opts.Namespace, poll: poll, diagnoseTTL: diagnoseTTL}, nil
}

// Name is "kubernetes".
func (e *Engine) Name() string { return "kubernetes" }

// Namespace is the namespace the engine creates its Job and Secret in.
func (e *Engine) Namespace() string { return e.namespace }

// Start creates the run's Job and its keys' Secret and returns; the pods
// start on their own and the agents join the coordinator. On an error it
// deletes what it had created; Stop is safe after it either way.
func (e *Engine) Start(ctx context.Context, spec fleet.AgentSpec) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return errors.New("kubernetes: engine already started")
	}
	objs, err := Manifests(spec, e.opts)
	if err != nil {
		return err
	}
	job, secret := objs[0].(*batchv1.Job), objs[1].(*corev1.Secret)
	e.started, e.spec = true, spec
	e.job, e.secret = job.Name, secret.Name

	jobs := e.client.BatchV1().Jobs(e.namespace)
	created, err := jobs.Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			// Not ours: Stop must not delete another run's Job.
			e.job, e.secret = "", ""
			return fmt.Errorf("kubernetes: job %s/%s already exists (a run with the same id; remove it with kubectl delete job -n %s -l %s): %w",
				e.namespace, job.Name, e.namespace, Selector(spec.RunID), err)
		}
		return fmt.Errorf("kubernetes: create job %s/%s: %w", e.namespace, job.Name, err)
	}
	// The pods may be created before the Secret exists; the kubelet
	// retries a container whose secretKeyRef is missing until it appears.
	// No blockOwnerDeletion: it only matters to foreground deletion, and
	// where admission enforces owner references it would need update on
	// jobs/finalizers, which the coordinator's Role does not grant.
	secret.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: "batch/v1",
		Kind:       "Job",
		Name:       created.Name,
		UID:        created.UID,
		Controller: ptr(true),
	}}
	if _, err := e.client.CoreV1().Secrets(e.namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		err = fmt.Errorf("kubernetes: create secret %s/%s: %w", e.namespace, secret.Name, err)
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		if derr := e.deleteJob(cctx); derr != nil {
			err = errors.Join(err, derr)
		}
		return err
	}
	return nil
}

// Stop deletes the Job with background propagation (the garbage
// collector removes its pods) and the Secret. Both already gone is not an
// error, so Stop is idempotent and safe after a failed Start or before
// Start.
//
// The caller passes a fresh, bounded ctx, not the run's: Stop must still
// run after the run's ctx was cancelled (Ctrl-C, a brake). If ctx is
// already done anyway, Stop uses its own 30 s timeout rather than leave
// the agents running.
func (e *Engine) Stop(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.job == "" {
		return nil
	}
	ctx, cancel := stopContext(ctx)
	defer cancel()
	return errors.Join(e.deleteJob(ctx), e.deleteSecret(ctx))
}

// stopContext is ctx, or a cleanupContext if ctx is already done.
func stopContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() != nil {
		return cleanupContext(ctx)
	}
	return ctx, func() {}
}

func (e *Engine) deleteJob(ctx context.Context) error {
	err := e.client.BatchV1().Jobs(e.namespace).Delete(ctx, e.job, metav1.DeleteOptions{
		PropagationPolicy: ptr(metav1.DeletePropagationBackground),
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("kubernetes: delete job %s/%s (kubectl delete job -n %s -l %s): %w",
			e.namespace, e.job, e.namespace, Selector(e.spec.RunID), err)
	}
	return nil
}

func (e *Engine) deleteSecret(ctx context.Context) error {
	err := e.client.CoreV1().Secrets(e.namespace).Delete(ctx, e.secret, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("kubernetes: delete secret %s/%s: %w", e.namespace, e.secret, err)
	}
	return nil
}

// cleanupContext is a ctx for deleting what a run created: ctx's values
// without its cancellation, bounded by stopTimeout.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
}
