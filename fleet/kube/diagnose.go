package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// describeTimeout bounds the look-ups that explain a timeout once the
// wait itself has run out.
const describeTimeout = 10 * time.Second

// maxDescribed is how many pods a timeout error explains one by one.
const maxDescribed = 3

// Diagnose says what Kubernetes knows about the agent of index: its pod's
// phase, its container's state or why it is not scheduled, and its latest
// event, e.g. "pod trigger-run-ab12-2-xyz: Pending: Unschedulable: 0/3
// nodes are available: 3 Insufficient cpu". With no pod for the index it
// says so with the Job's state and latest event (a quota that refused the
// pod shows there). "" before Start.
//
// The coordinator asks about every agent that has not joined several
// times a second: what Diagnose reads from the API (the run's pods, an
// object's events, the Job) is reused for a second, so the calls stay
// within the client's rate limit however many agents wait. A container
// that has ended is said to have "exited", which the coordinator takes
// as the agent being lost.
func (e *Engine) Diagnose(ctx context.Context, index int) string {
	job, runID := e.names()
	if job == "" {
		return ""
	}
	v, err := e.cached("pods", func() (any, error) { return e.runPods(ctx, runID) })
	if err != nil {
		return fmt.Sprintf("agent %d: listing the run's pods: %v", index, err)
	}
	if p := v.(map[int]*corev1.Pod)[index]; p != nil {
		return e.describePod(ctx, p)
	}
	return e.describeMissing(ctx, index)
}

// NotRunningError is WaitPodsRunning's error when some agent pods were not
// Running within the timeout. It unwraps to context.DeadlineExceeded.
type NotRunningError struct {
	Timeout time.Duration // how long the wait was
	Agents  int           // how many pods were awaited
	// Pods has one entry per index whose pod was not Running, by index:
	// the first three described as Diagnose does, the rest as "agent N".
	Pods []string
}

func (e *NotRunningError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kubernetes: %d of %d agent pods not Running after %s", len(e.Pods), e.Agents, e.Timeout)
	for i, d := range e.Pods {
		if i == maxDescribed {
			fmt.Fprintf(&b, "; and %d more", len(e.Pods)-maxDescribed)
			break
		}
		b.WriteString("; ")
		b.WriteString(d)
	}
	return b.String()
}

func (e *NotRunningError) Unwrap() error { return context.DeadlineExceeded }

// WaitPodsRunning waits until the pod of every index is Running, listing
// them every PollInterval. It fails at once when a pod has ended (Failed
// or Succeeded) before then, and after timeout with a *NotRunningError
// naming each pod that is not Running and its latest event. The
// coordinator's join wait is the real readiness check; this one is for
// callers that want the pods up before anything else, and for tests.
func (e *Engine) WaitPodsRunning(ctx context.Context, timeout time.Duration) error {
	job, runID := e.names()
	if job == "" {
		return errors.New("kubernetes: WaitPodsRunning before Start")
	}
	n := e.agents()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(e.poll)
	defer tick.Stop()
	var lastErr error
	for {
		pods, err := e.runPods(wctx, runID)
		if err == nil {
			lastErr = nil
			running := 0
			for i := 0; i < n; i++ {
				p := pods[i]
				if p == nil {
					continue
				}
				switch p.Status.Phase {
				case corev1.PodRunning:
					if p.DeletionTimestamp == nil {
						running++
					}
				case corev1.PodFailed, corev1.PodSucceeded:
					dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), describeTimeout)
					d := e.describePod(dctx, p)
					dcancel()
					return fmt.Errorf("kubernetes: agent %d ended before every agent was running: %s", i, d)
				}
			}
			if running == n {
				return nil
			}
		} else if wctx.Err() == nil {
			lastErr = err
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("kubernetes: waiting for agent pods: %w", ctx.Err())
			}
			if lastErr != nil {
				return fmt.Errorf("kubernetes: agent pods not Running after %s: listing them: %w", timeout, lastErr)
			}
			return e.notRunning(ctx, runID, n, timeout)
		case <-tick.C:
		}
	}
}

// notRunning builds the timeout error from a last look at the pods.
func (e *Engine) notRunning(ctx context.Context, runID string, n int, timeout time.Duration) error {
	dctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	pods, err := e.runPods(dctx, runID)
	if err != nil {
		return fmt.Errorf("kubernetes: agent pods not Running after %s: listing them: %w", timeout, err)
	}
	nr := &NotRunningError{Timeout: timeout, Agents: n}
	for i := 0; i < n; i++ {
		p := pods[i]
		switch {
		case p != nil && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil:
			continue
		case len(nr.Pods) >= maxDescribed:
			nr.Pods = append(nr.Pods, fmt.Sprintf("agent %d", i))
		case p != nil:
			nr.Pods = append(nr.Pods, e.describePod(dctx, p))
		default:
			nr.Pods = append(nr.Pods, e.describeMissing(dctx, i))
		}
	}
	if len(nr.Pods) == 0 {
		return nil
	}
	return nr
}

// names is the Job's name and the run's id; "" before Start.
func (e *Engine) names() (job, runID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.job, e.spec.RunID
}

func (e *Engine) agents() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.spec.Agents
}

// runPods lists the run's pods by index; of several pods for one index
// (one being deleted, say) it keeps the one not being deleted, then the
// newest.
func (e *Engine) runPods(ctx context.Context, runID string) (map[int]*corev1.Pod, error) {
	list, err := e.client.CoreV1().Pods(e.namespace).List(ctx, metav1.ListOptions{LabelSelector: Selector(runID)})
	if err != nil {
		return nil, err
	}
	byIndex := map[int]*corev1.Pod{}
	for i := range list.Items {
		p := &list.Items[i]
		idx, ok := podIndex(p)
		if !ok {
			continue
		}
		if q := byIndex[idx]; q == nil || better(p, q) {
			byIndex[idx] = p
		}
	}
	return byIndex, nil
}

// better says whether p is a better pod of its index to describe than q.
func better(p, q *corev1.Pod) bool {
	if (p.DeletionTimestamp == nil) != (q.DeletionTimestamp == nil) {
		return p.DeletionTimestamp == nil
	}
	return q.CreationTimestamp.Before(&p.CreationTimestamp)
}

// podIndex is a pod's completion index, from its label or annotation.
func podIndex(p *corev1.Pod) (int, bool) {
	s, ok := p.Labels[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		s, ok = p.Annotations[batchv1.JobCompletionIndexAnnotation]
	}
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil
}

// describePod is "pod NAME: PHASE[: detail][; event REASON: MESSAGE]".
func (e *Engine) describePod(ctx context.Context, p *corev1.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pod %s: %s", p.Name, p.Status.Phase)
	if p.DeletionTimestamp != nil {
		b.WriteString(" (being deleted)")
	}
	if d := podDetail(p); d != "" {
		b.WriteString(": ")
		b.WriteString(d)
	}
	e.appendEvent(ctx, &b, "Pod", p.Name)
	return b.String()
}

// podDetail is the most telling of: the agent container's waiting or
// terminated state, the scheduler's reason, the pod's own reason.
func podDetail(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != ContainerName {
			continue // a sidecar a mesh injected: its end is not the agent's
		}
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return join(w.Reason, w.Message)
		}
		if t := cs.State.Terminated; t != nil {
			return join(fmt.Sprintf("container %s exited with code %d (%s)", cs.Name, t.ExitCode, orDefault(t.Reason, "Terminated")), t.Message)
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return join(c.Reason, c.Message)
		}
	}
	return join(p.Status.Reason, p.Status.Message)
}

// describeMissing explains an index that has no pod, from its Job.
func (e *Engine) describeMissing(ctx context.Context, index int) string {
	job, _ := e.names()
	var b strings.Builder
	fmt.Fprintf(&b, "agent %d: no pod", index)
	v, err := e.cached("job", func() (any, error) {
		return e.client.BatchV1().Jobs(e.namespace).Get(ctx, job, metav1.GetOptions{})
	})
	var j *batchv1.Job
	if err == nil {
		j = v.(*batchv1.Job)
	}
	switch {
	case apierrors.IsNotFound(err):
		fmt.Fprintf(&b, "; job %s not found", job)
		return b.String()
	case err != nil:
		fmt.Fprintf(&b, "; job %s: %v", job, err)
		return b.String()
	}
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobFailed || c.Type == batchv1.JobComplete || c.Type == batchv1.JobSuspended) && c.Status == corev1.ConditionTrue {
			fmt.Fprintf(&b, "; job %s %s", job, join(string(c.Type), join(c.Reason, c.Message)))
		}
	}
	e.appendEvent(ctx, &b, "Job", job)
	return b.String()
}

// appendEvent adds the object's latest event unless its message is
// already in b.
func (e *Engine) appendEvent(ctx context.Context, b *strings.Builder, kind, name string) {
	ev, err := e.latestEvent(ctx, kind, name)
	switch {
	case err != nil:
		fmt.Fprintf(b, "; events: %v", err)
	case ev != nil && (ev.Message == "" || !strings.Contains(b.String(), ev.Message)):
		fmt.Fprintf(b, "; event %s", join(ev.Reason, ev.Message))
	}
}

// latestEvent is the most recent event about the named object; nil if none.
func (e *Engine) latestEvent(ctx context.Context, kind, name string) (*corev1.Event, error) {
	v, err := e.cached("events/"+kind+"/"+name, func() (any, error) { return e.fetchLatestEvent(ctx, kind, name) })
	if err != nil {
		return nil, err
	}
	return v.(*corev1.Event), nil
}

func (e *Engine) fetchLatestEvent(ctx context.Context, kind, name string) (*corev1.Event, error) {
	sel := fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.kind", kind),
		fields.OneTermEqualSelector("involvedObject.name", name),
	)
	list, err := e.client.CoreV1().Events(e.namespace).List(ctx, metav1.ListOptions{FieldSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	// The field selector may be ignored (fake clients): filter again.
	var evs []*corev1.Event
	for i := range list.Items {
		ev := &list.Items[i]
		if ev.InvolvedObject.Name == name && (ev.InvolvedObject.Kind == kind || ev.InvolvedObject.Kind == "") {
			evs = append(evs, ev)
		}
	}
	if len(evs) == 0 {
		return nil, nil
	}
	sort.SliceStable(evs, func(i, j int) bool { return eventTime(evs[i]).Before(eventTime(evs[j])) })
	return evs[len(evs)-1], nil
}

// eventTime is when an event last happened, whichever field its reporter
// filled.
func eventTime(ev *corev1.Event) time.Time {
	t := ev.CreationTimestamp.Time
	for _, c := range []time.Time{ev.FirstTimestamp.Time, ev.LastTimestamp.Time, ev.EventTime.Time} {
		if c.After(t) {
			t = c
		}
	}
	if ev.Series != nil && ev.Series.LastObservedTime.After(t) {
		t = ev.Series.LastObservedTime.Time
	}
	return t
}

// join is "a: b", or whichever of them is not empty.
func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ": " + b
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// cacheEntry is a value Diagnose read from the API, and when.
type cacheEntry struct {
	at time.Time
	v  any
}

// cached returns the value under key if it was fetched within the
// engine's diagnoseTTL, else fetches and keeps it. Errors are not kept.
// Concurrent callers wait for one fetch rather than each making theirs.
func (e *Engine) cached(key string, fetch func() (any, error)) (any, error) {
	e.cacheMu.Lock()
	defer e.cacheMu.Unlock()
	if c, ok := e.cache[key]; ok && time.Since(c.at) < e.diagnoseTTL {
		return c.v, nil
	}
	v, err := fetch()
	if err != nil {
		return nil, err
	}
	if e.cache == nil {
		e.cache = map[string]cacheEntry{}
	}
	e.cache[key] = cacheEntry{at: time.Now(), v: v}
	return v, nil
}
