package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

const jobUID = types.UID("0d6f-job-uid")

// newFake is a fake clientset that gives created Jobs a UID, as the API
// server does.
func newFake(objs ...runtime.Object) *fake.Clientset {
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		a.(k8stesting.CreateAction).GetObject().(*batchv1.Job).UID = jobUID
		return false, nil, nil
	})
	return cs
}

func newEngine(t *testing.T, cs *fake.Clientset) *Engine {
	t.Helper()
	opts := testOptions()
	opts.Clientset = cs
	opts.PollInterval = 5 * time.Millisecond
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.diagnoseTTL = 0 // each Diagnose reads the fake's current state
	return e
}

func started(t *testing.T, cs *fake.Clientset) *Engine {
	t.Helper()
	e := newEngine(t, cs)
	if err := e.Start(context.Background(), testSpec()); err != nil {
		t.Fatal(err)
	}
	return e
}

func getJob(cs *fake.Clientset) (*batchv1.Job, error) {
	return cs.BatchV1().Jobs("load").Get(context.Background(), JobName(testSpec().RunID), metav1.GetOptions{})
}

func getSecret(cs *fake.Clientset) (*corev1.Secret, error) {
	return cs.CoreV1().Secrets("load").Get(context.Background(), SecretName(testSpec().RunID), metav1.GetOptions{})
}

func TestNewNeedsImage(t *testing.T) {
	if _, err := New(Options{Clientset: fake.NewClientset()}); err == nil || !strings.Contains(err.Error(), "image") {
		t.Errorf("New without an image: %v", err)
	}
	e, err := New(Options{Image: "trigger:dev", Clientset: fake.NewClientset()})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "kubernetes" || e.Namespace() != "default" {
		t.Errorf("Name %q Namespace %q", e.Name(), e.Namespace())
	}
}

func TestStartCreatesJobAndOwnedSecret(t *testing.T) {
	cs := newFake()
	started(t, cs)
	job, err := getJob(cs)
	if err != nil {
		t.Fatalf("job not created: %v", err)
	}
	if *job.Spec.Completions != 8 || job.Labels[RunIDLabel] != testSpec().RunID {
		t.Errorf("created job %+v", job.Spec)
	}
	secret, err := getSecret(cs)
	if err != nil {
		t.Fatalf("secret not created: %v", err)
	}
	if string(secret.Data["key-0"]) != testKey0 || string(secret.Data[CertKey]) != testCert {
		t.Errorf("secret data %q", secret.Data)
	}
	if len(secret.OwnerReferences) != 1 {
		t.Fatalf("secret owner references %+v, want the Job", secret.OwnerReferences)
	}
	ref := secret.OwnerReferences[0]
	if ref.APIVersion != "batch/v1" || ref.Kind != "Job" || ref.Name != job.Name || ref.UID != jobUID ||
		ref.Controller == nil || !*ref.Controller {
		t.Errorf("secret owner reference %+v, want the Job %s (uid %s)", ref, job.Name, jobUID)
	}
	// The Job before the Secret: the Secret's owner reference needs the
	// Job's UID.
	var order []string
	for _, a := range cs.Actions() {
		if a.GetVerb() == "create" {
			order = append(order, a.GetResource().Resource)
		}
	}
	if strings.Join(order, ",") != "jobs,secrets" {
		t.Errorf("creates %v, want jobs then secrets", order)
	}
}

func TestStartTwice(t *testing.T) {
	e := started(t, newFake())
	if err := e.Start(context.Background(), testSpec()); err == nil {
		t.Error("a second Start succeeded")
	}
}

func TestStartJobExists(t *testing.T) {
	other := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: JobName(testSpec().RunID), Namespace: "load"}}
	cs := newFake(other)
	e := newEngine(t, cs)
	err := e.Start(context.Background(), testSpec())
	if err == nil || !apierrors.IsAlreadyExists(err) || !strings.Contains(err.Error(), "kubectl delete job") {
		t.Fatalf("Start over an existing Job: %v", err)
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := getJob(cs); err != nil {
		t.Errorf("Stop deleted a Job the engine had not created: %v", err)
	}
}

func TestStartSecretFailsDeletesJob(t *testing.T) {
	cs := newFake()
	cs.PrependReactor("create", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "x", errors.New("no RBAC"))
	})
	e := newEngine(t, cs)
	err := e.Start(context.Background(), testSpec())
	if err == nil || !strings.Contains(err.Error(), "create secret") {
		t.Fatalf("Start with secrets forbidden: %v", err)
	}
	if _, err := getJob(cs); !apierrors.IsNotFound(err) {
		t.Errorf("the Job is left after the Secret failed: %v", err)
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Errorf("Stop after a failed Start: %v", err)
	}
}

func TestStopDeletesJobAndSecret(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	cs.ClearActions()
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := getJob(cs); !apierrors.IsNotFound(err) {
		t.Errorf("job after Stop: %v", err)
	}
	if _, err := getSecret(cs); !apierrors.IsNotFound(err) {
		t.Errorf("secret after Stop: %v", err)
	}
	var deletes []string
	for _, a := range cs.Actions() {
		d, ok := a.(k8stesting.DeleteAction)
		if !ok {
			continue
		}
		deletes = append(deletes, a.GetResource().Resource+"/"+d.GetName())
		if a.GetResource().Resource == "jobs" {
			pp := d.GetDeleteOptions().PropagationPolicy
			if pp == nil || *pp != metav1.DeletePropagationBackground {
				t.Errorf("job deleted with propagation %v, want Background (its pods go with it)", pp)
			}
		}
	}
	want := "jobs/" + JobName(testSpec().RunID) + ",secrets/" + SecretName(testSpec().RunID)
	if strings.Join(deletes, ",") != want {
		t.Errorf("deletes %v, want %s", deletes, want)
	}
	// Idempotent: everything is gone already.
	if err := e.Stop(context.Background()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopBeforeStart(t *testing.T) {
	cs := newFake()
	e := newEngine(t, cs)
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("Stop before Start made %d calls", n)
	}
	bad := testSpec()
	bad.Agents = 0
	if err := e.Start(context.Background(), bad); err == nil {
		t.Fatal("Start with 0 agents succeeded")
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Errorf("Stop after Start refused its spec: %v", err)
	}
}

func TestStopReportsOtherErrors(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	cs.PrependReactor("delete", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "x", errors.New("no RBAC"))
	})
	err := e.Stop(context.Background())
	if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "kubectl delete job -n load -l trigger.run-id=") {
		t.Errorf("Stop with jobs forbidden: %v", err)
	}
	if _, err := getSecret(cs); !apierrors.IsNotFound(err) {
		t.Errorf("the Secret was kept because the Job could not be deleted: %v", err)
	}
}

// The run's ctx is cancelled (Ctrl-C, a brake) before Stop: Stop gets a
// fresh ctx from the caller and deletes everything.
func TestStopAfterRunCancelled(t *testing.T) {
	cs := newFake()
	e := newEngine(t, cs)
	runCtx, cancelRun := context.WithCancel(context.Background())
	if err := e.Start(runCtx, testSpec()); err != nil {
		t.Fatal(err)
	}
	cancelRun()
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	if _, err := getJob(cs); !apierrors.IsNotFound(err) {
		t.Errorf("job after Stop: %v", err)
	}
}

// A caller that passes the cancelled run ctx itself still gets the Job
// deleted: Stop runs its calls on a ctx of its own, bounded.
func TestStopOnCancelledCtx(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := getJob(cs); !apierrors.IsNotFound(err) {
		t.Errorf("job after Stop(cancelled ctx): %v", err)
	}
	if _, err := getSecret(cs); !apierrors.IsNotFound(err) {
		t.Errorf("secret after Stop(cancelled ctx): %v", err)
	}

	// The fake clientset ignores ctx: check the ctx Stop would use.
	sctx, scancel := stopContext(ctx)
	defer scancel()
	if sctx.Err() != nil {
		t.Errorf("Stop's ctx for a cancelled one is done: %v", sctx.Err())
	}
	if dl, ok := sctx.Deadline(); !ok || time.Until(dl) > stopTimeout {
		t.Errorf("Stop's ctx deadline %v (set %v), want within %s", dl, ok, stopTimeout)
	}
	live, lcancel := context.WithTimeout(context.Background(), time.Hour)
	defer lcancel()
	lctx, lc := stopContext(live)
	defer lc()
	if dl, _ := lctx.Deadline(); time.Until(dl) < 59*time.Minute {
		t.Errorf("Stop replaced a live ctx: deadline %v", dl)
	}
}

// pod is the agent pod of index as the Job controller makes it.
func pod(index int, phase corev1.PodPhase, age time.Duration) *corev1.Pod {
	spec := testSpec()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              fmt.Sprintf("%s-%d-x%d", JobName(spec.RunID), index, index),
			Namespace:         "load",
			CreationTimestamp: metav1.NewTime(time.Unix(1_800_000_000, 0).Add(-age)),
			Labels: map[string]string{
				RunIDLabel:                           RunLabelValue(spec.RunID),
				batchv1.JobCompletionIndexAnnotation: fmt.Sprint(index),
			},
			Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(index)},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
}

func event(kind, name, reason, msg string, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%d", name, at.UnixNano()), Namespace: "load"},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: "load"},
		Reason:         reason,
		Message:        msg,
		Type:           corev1.EventTypeWarning,
		LastTimestamp:  metav1.NewTime(at),
	}
}

func create(t *testing.T, cs *fake.Clientset, objs ...runtime.Object) {
	t.Helper()
	for _, o := range objs {
		if err := cs.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiagnose(t *testing.T) {
	cs := newFake()
	e := newEngine(t, cs)
	if d := e.Diagnose(context.Background(), 0); d != "" {
		t.Errorf("Diagnose before Start = %q, want \"\"", d)
	}
	if err := e.Start(context.Background(), testSpec()); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	job := JobName(testSpec().RunID)

	unscheduled := pod(2, corev1.PodPending, time.Minute)
	unscheduled.Status.Conditions = []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/3 nodes are available: 3 Insufficient cpu.",
	}}
	noEvent := pod(3, corev1.PodPending, time.Minute)
	noEvent.Status.Conditions = unscheduled.Status.Conditions
	pulling := pod(4, corev1.PodPending, time.Minute)
	pulling.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: ContainerName,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.example.com/trigger:v1.4.0"`,
		}},
	}}
	crashed := pod(5, corev1.PodFailed, time.Minute)
	crashed.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: ContainerName,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: "Error", ExitCode: 2, Message: "agent: dial coordinator: connection refused",
		}},
	}}
	// Index 6 had a pod that is being replaced by a newer one.
	old := pod(6, corev1.PodFailed, 2*time.Minute)
	old.Name += "-old"
	old.DeletionTimestamp = ptr(metav1.NewTime(t0))
	running := pod(6, corev1.PodRunning, time.Second)
	// A sidecar a mesh injected has ended; the agent still runs: not "exited".
	running.Status.ContainerStatuses = []corev1.ContainerStatus{
		{Name: "istio-proxy", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}},
		{Name: ContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
	}
	create(t, cs, unscheduled, noEvent, pulling, crashed, old, running,
		event("Pod", unscheduled.Name, "Scheduled", "an older event", t0.Add(-time.Hour)),
		event("Pod", unscheduled.Name, "FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu.", t0),
		event("Pod", pulling.Name, "Pulling", `Pulling image "registry.example.com/trigger:v1.4.0"`, t0.Add(-time.Minute)),
		event("Pod", pulling.Name, "Failed", "Error: ImagePullBackOff", t0),
		event("Pod", "someone-elses-pod", "FailedScheduling", "not this one", t0.Add(time.Hour)),
		event("Job", job, "FailedCreate", `pods "`+job+`-7-abcde" is forbidden: exceeded quota: compute, requested: cpu=500m`, t0),
	)

	for _, tc := range []struct {
		index int
		want  string
	}{
		{2, "pod " + unscheduled.Name + ": Pending: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu."},
		{3, "pod " + noEvent.Name + ": Pending: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu."},
		{4, "pod " + pulling.Name + `: Pending: ImagePullBackOff: Back-off pulling image "registry.example.com/trigger:v1.4.0"; event Failed: Error: ImagePullBackOff`},
		{5, "pod " + crashed.Name + ": Failed: container agent exited with code 2 (Error): agent: dial coordinator: connection refused"},
		{6, "pod " + running.Name + ": Running"},
		{7, "agent 7: no pod; event FailedCreate: pods \"" + job + "-7-abcde\" is forbidden: exceeded quota: compute, requested: cpu=500m"},
	} {
		if got := e.Diagnose(context.Background(), tc.index); got != tc.want {
			t.Errorf("Diagnose(%d)\n got %q\nwant %q", tc.index, got, tc.want)
		}
	}

	// The scheduler's event, with no condition on the pod yet.
	bare := pod(1, corev1.PodPending, time.Minute)
	create(t, cs, bare, event("Pod", bare.Name, "FailedScheduling", "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", t0))
	want := "pod " + bare.Name + ": Pending; event FailedScheduling: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
	if got := e.Diagnose(context.Background(), 1); got != want {
		t.Errorf("Diagnose(1)\n got %q\nwant %q", got, want)
	}

	// The Job failed (its deadline passed): said for an index with no pod.
	j, err := getJob(cs)
	if err != nil {
		t.Fatal(err)
	}
	j.Status.Conditions = []batchv1.JobCondition{{
		Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded",
		Message: "Job was active longer than specified deadline",
	}}
	if _, err := cs.BatchV1().Jobs("load").UpdateStatus(context.Background(), j, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := e.Diagnose(context.Background(), 0); !strings.Contains(got, "agent 0: no pod; job "+job+" Failed: DeadlineExceeded: Job was active longer than specified deadline") {
		t.Errorf("Diagnose(0) of a failed Job: %q", got)
	}

	// After Stop, the Job is gone.
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Diagnose(context.Background(), 0), "agent 0: no pod; job "+job+" not found"; got != want {
		t.Errorf("Diagnose after Stop = %q, want %q", got, want)
	}
}

func TestDiagnoseEventsForbidden(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	create(t, cs, pod(0, corev1.PodPending, 0))
	cs.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New("no RBAC"))
	})
	got := e.Diagnose(context.Background(), 0)
	if !strings.HasPrefix(got, "pod ") || !strings.Contains(got, "; events: ") || !strings.Contains(got, "forbidden") {
		t.Errorf("Diagnose without events: %q", got)
	}
}

func runningPods(n int) []runtime.Object {
	var objs []runtime.Object
	for i := 0; i < n; i++ {
		objs = append(objs, pod(i, corev1.PodRunning, time.Minute))
	}
	return objs
}

func TestWaitPodsRunning(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	create(t, cs, runningPods(8)...)
	if err := e.WaitPodsRunning(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestWaitPodsRunningBeforeStart(t *testing.T) {
	if err := newEngine(t, newFake()).WaitPodsRunning(context.Background(), time.Second); err == nil {
		t.Error("WaitPodsRunning before Start succeeded")
	}
}

// Pods that come up while the engine waits are seen at the next poll.
func TestWaitPodsRunningLate(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	objs := runningPods(8)
	pending := pod(7, corev1.PodPending, time.Minute)
	create(t, cs, append(objs[:7:7], pending)...)
	done := make(chan error, 1)
	go func() { done <- e.WaitPodsRunning(context.Background(), 5*time.Second) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("WaitPodsRunning returned %v with a pod still Pending", err)
	default:
	}
	pending.Status.Phase = corev1.PodRunning
	if _, err := cs.CoreV1().Pods("load").UpdateStatus(context.Background(), pending, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWaitPodsRunningTimeout(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	objs := runningPods(8)
	stuck := pod(2, corev1.PodPending, time.Minute)
	stuck.Status.Conditions = []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/3 nodes are available: 3 Insufficient cpu.",
	}}
	objs[2] = stuck
	objs = objs[:7] // no pod at all for index 7
	job := JobName(testSpec().RunID)
	objs = append(objs,
		event("Pod", stuck.Name, "FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu.", time.Unix(1_800_000_000, 0)),
		event("Job", job, "FailedCreate", "exceeded quota: compute", time.Unix(1_800_000_000, 0)))
	create(t, cs, objs...)

	start := time.Now()
	err := e.WaitPodsRunning(context.Background(), 50*time.Millisecond)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("WaitPodsRunning took %s for a 50 ms timeout", took)
	}
	var nr *NotRunningError
	if !errors.As(err, &nr) {
		t.Fatalf("error %v (%T), want *NotRunningError", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the timeout error does not unwrap to context.DeadlineExceeded")
	}
	want := "kubernetes: 2 of 8 agent pods not Running after 50ms; " +
		"pod " + stuck.Name + ": Pending: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.; " +
		"agent 7: no pod; event FailedCreate: exceeded quota: compute"
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err.Error(), want)
	}
}

func TestWaitPodsRunningManyStuck(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	var objs []runtime.Object
	for i := 0; i < 8; i++ {
		objs = append(objs, pod(i, corev1.PodPending, time.Minute))
	}
	create(t, cs, objs...)
	err := e.WaitPodsRunning(context.Background(), 20*time.Millisecond)
	var nr *NotRunningError
	if !errors.As(err, &nr) || len(nr.Pods) != 8 {
		t.Fatalf("error %v, want all 8 pods named", err)
	}
	if msg := err.Error(); !strings.HasSuffix(msg, "; and 5 more") || strings.Count(msg, "; pod ") != 3 {
		t.Errorf("error %q, want 3 pods described and 5 more", msg)
	}
}

func TestWaitPodsRunningPodEnded(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	objs := runningPods(8)
	failed := pod(4, corev1.PodFailed, time.Minute)
	failed.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: ContainerName,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: "Error", ExitCode: 1, Message: "agent: bad token",
		}},
	}}
	objs[4] = failed
	create(t, cs, objs...)
	start := time.Now()
	err := e.WaitPodsRunning(context.Background(), 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "agent 4 ended") || !strings.Contains(err.Error(), failed.Name+": Failed: container agent exited with code 1 (Error): agent: bad token") {
		t.Errorf("WaitPodsRunning with a failed pod: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a failed pod was reported after %s, not at once", took)
	}
}

func TestWaitPodsRunningCancelled(t *testing.T) {
	e := started(t, newFake())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := e.WaitPodsRunning(ctx, 10*time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("WaitPodsRunning on a cancelled ctx: %v", err)
	}
	var nr *NotRunningError
	if errors.As(err, &nr) {
		t.Error("a cancelled wait reported as a timeout")
	}
}

// The coordinator asks about every waiting agent several times a second:
// Diagnose reuses what it read instead of listing again each time.
func TestDiagnoseReusesReads(t *testing.T) {
	cs := newFake()
	e := started(t, cs)
	e.diagnoseTTL = time.Hour
	var objs []runtime.Object
	for i := 0; i < 7; i++ { // index 7 has no pod
		p := pod(i, corev1.PodPending, time.Minute)
		objs = append(objs, p, event("Pod", p.Name, "FailedScheduling", "0/3 nodes are available", time.Unix(1_800_000_000, 0)))
	}
	create(t, cs, objs...)
	cs.ClearActions()
	first := make([]string, 8)
	for round := 0; round < 5; round++ {
		for i := 0; i < 8; i++ {
			d := e.Diagnose(context.Background(), i)
			if round == 0 {
				first[i] = d
			} else if d != first[i] {
				t.Errorf("Diagnose(%d) changed from %q to %q on a cached read", i, first[i], d)
			}
		}
	}
	calls := map[string]int{}
	for _, a := range cs.Actions() {
		calls[a.GetVerb()+" "+a.GetResource().Resource]++
	}
	// One pod list, one event list per pod and for the Job, one Job get.
	want := map[string]int{"list pods": 1, "list events": 8, "get jobs": 1}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("API calls for 40 Diagnose calls: %v, want %v", calls, want)
	}
}
