package kube

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The example Role grants every call the engine makes: a whole run on the
// fake clientset, its calls checked against the Role's rules.
func TestExampleRBACCoversEngine(t *testing.T) {
	b, err := os.ReadFile("../../examples/kubernetes/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role *rbacv1.Role
	kinds := map[string]bool{}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		kinds[meta.Kind] = true
		if meta.Kind == "Role" {
			role = &rbacv1.Role{}
			if err := yaml.UnmarshalStrict([]byte(doc), role); err != nil {
				t.Fatal(err)
			}
		}
	}
	if role == nil || !kinds["RoleBinding"] || !kinds["ServiceAccount"] {
		t.Fatalf("rbac.yaml has %v, want a ServiceAccount, a Role and a RoleBinding", kinds)
	}

	cs := newFake()
	e := started(t, cs)
	create(t, cs, pod(0, corev1.PodPending, time.Minute))
	e.Diagnose(context.Background(), 0)
	e.Diagnose(context.Background(), 1) // no pod: reads the Job
	_ = e.WaitPodsRunning(context.Background(), 10*time.Millisecond)
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range cs.Actions() {
		gr, verb := a.GetResource(), a.GetVerb()
		key := gr.Group + "/" + gr.Resource + " " + verb
		seen[key] = true
		allowed := slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
			return slices.Contains(r.APIGroups, gr.Group) && slices.Contains(r.Resources, gr.Resource) && slices.Contains(r.Verbs, verb)
		})
		if !allowed {
			t.Errorf("the engine calls %s, which the example Role does not grant", key)
		}
	}
	for _, want := range []string{"batch/jobs create", "batch/jobs delete", "batch/jobs get", "/secrets create", "/secrets delete", "/pods list", "/events list"} {
		if !seen[want] {
			t.Errorf("the run made no %s call (seen %v)", want, seen)
		}
	}
}
