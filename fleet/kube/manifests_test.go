package kube

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/fleet"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	testKey0 = "5ec7e7000000000000000000000000000000000000000000000000000000aaaa" // agent 0's key
	testCert = "ce47000000000000000000000000000000000000000000000000000000000fff"
)

// testKeys are the agents' keys of testSpec: testKey0 first.
func testKeys(n int) []string {
	keys := []string{testKey0}
	for i := 1; i < n; i++ {
		keys = append(keys, fmt.Sprintf("5ec7e7%058d", i))
	}
	return keys
}

func testSpec() fleet.AgentSpec {
	return fleet.AgentSpec{
		RunID:       "checkout-20261130-234126",
		Agents:      8,
		Coordinator: "https://coordinator.trigger.svc:7070",
		Keys:        testKeys(8),
		CertSHA256:  testCert,
		MaxDuration: 10*time.Minute + 500*time.Millisecond,
	}
}

func testOptions() Options {
	return Options{
		Namespace:       "load",
		Image:           "registry.example.com/trigger:v1.4.0",
		ImagePullPolicy: corev1.PullIfNotPresent,
		ServiceAccount:  "trigger-agent",
		Resources:       Resources{CPURequest: "500m", CPULimit: "2", MemoryRequest: "256Mi", MemoryLimit: "512Mi"},
		NodeSelector:    map[string]string{"pool": "load"},
	}
}

func manifests(t *testing.T, spec fleet.AgentSpec, opts Options) (*batchv1.Job, *corev1.Secret) {
	t.Helper()
	objs, err := Manifests(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("Manifests returned %d objects, want the Job and the Secret", len(objs))
	}
	job, ok := objs[0].(*batchv1.Job)
	if !ok {
		t.Fatalf("first object is %T, want *batchv1.Job", objs[0])
	}
	secret, ok := objs[1].(*corev1.Secret)
	if !ok {
		t.Fatalf("second object is %T, want *corev1.Secret", objs[1])
	}
	return job, secret
}

func TestManifestsJob(t *testing.T) {
	spec, opts := testSpec(), testOptions()
	job, _ := manifests(t, spec, opts)

	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("type %s %s, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	if job.Name != "trigger-checkout-20261130-234126" || job.Namespace != "load" {
		t.Errorf("job %s/%s", job.Namespace, job.Name)
	}
	js := job.Spec
	if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", js.CompletionMode)
	}
	if js.Completions == nil || *js.Completions != 8 || js.Parallelism == nil || *js.Parallelism != 8 {
		t.Errorf("completions %v parallelism %v, want 8 and 8", js.Completions, js.Parallelism)
	}
	if js.BackoffLimit == nil || *js.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0", js.BackoffLimit)
	}
	// 600.5 s of max duration + the 60 s margin, rounded up.
	if js.ActiveDeadlineSeconds == nil || *js.ActiveDeadlineSeconds != 661 {
		t.Errorf("activeDeadlineSeconds %v, want 661", js.ActiveDeadlineSeconds)
	}
	if js.TTLSecondsAfterFinished == nil || *js.TTLSecondsAfterFinished <= 0 {
		t.Errorf("ttlSecondsAfterFinished %v, want a positive one", js.TTLSecondsAfterFinished)
	}
	for what, l := range map[string]map[string]string{"job": job.Labels, "pod": js.Template.Labels} {
		if l[RunIDLabel] != spec.RunID {
			t.Errorf("%s label %s = %q, want %q", what, RunIDLabel, l[RunIDLabel], spec.RunID)
		}
	}
	if job.Annotations[RunIDAnnotation] != spec.RunID {
		t.Errorf("job annotation %s = %q", RunIDAnnotation, job.Annotations[RunIDAnnotation])
	}

	pod := js.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s, want Never", pod.RestartPolicy)
	}
	if !reflect.DeepEqual(pod.NodeSelector, map[string]string{"pool": "load"}) {
		t.Errorf("nodeSelector %v", pod.NodeSelector)
	}
	if pod.ServiceAccountName != "trigger-agent" {
		t.Errorf("serviceAccountName %q", pod.ServiceAccountName)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken %v, want false", pod.AutomountServiceAccountToken)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v, want runAsNonRoot and a non-zero user", psc)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != opts.Image || c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("image %q pull %q", c.Image, c.ImagePullPolicy)
	}
	wantArgs := []string{"agent", "--coordinator", spec.Coordinator, "--index", "$(JOB_COMPLETION_INDEX)",
		"--key-file", "/var/run/trigger/key-$(JOB_COMPLETION_INDEX)"}
	if !reflect.DeepEqual(c.Args, wantArgs) {
		t.Errorf("args %q, want %q", c.Args, wantArgs)
	}
	if len(c.Command) != 0 {
		t.Errorf("command %q, want the image's entrypoint", c.Command)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	idx, ok := env["JOB_COMPLETION_INDEX"]
	if !ok || idx.ValueFrom == nil || idx.ValueFrom.FieldRef == nil ||
		idx.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("JOB_COMPLETION_INDEX env %+v, want the downward API's completion-index annotation", idx)
	}
	cert, ok := env["TRIGGER_AGENT_CERT_SHA256"]
	if !ok || cert.Value != "" || cert.ValueFrom == nil || cert.ValueFrom.SecretKeyRef == nil ||
		cert.ValueFrom.SecretKeyRef.Name != SecretName(spec.RunID) || cert.ValueFrom.SecretKeyRef.Key != CertKey {
		t.Errorf("TRIGGER_AGENT_CERT_SHA256 env %+v, want a secretKeyRef to %s/%s", cert, SecretName(spec.RunID), CertKey)
	}
	for _, e := range c.Env {
		if strings.Contains(e.Value, testKey0) || strings.Contains(e.Value, testCert) {
			t.Errorf("env %s holds a key or the fingerprint in clear", e.Name)
		}
	}
	// The keys come from the Secret, mounted read-only, readable by the
	// agent's group alone.
	var mounted bool
	for _, m := range c.VolumeMounts {
		mounted = mounted || (m.MountPath == KeyDir && m.ReadOnly && m.Name == keysVolume)
	}
	var vol *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == keysVolume {
			vol = &pod.Volumes[i]
		}
	}
	if !mounted || vol == nil || vol.Secret == nil || vol.Secret.SecretName != SecretName(spec.RunID) ||
		vol.Secret.DefaultMode == nil || *vol.Secret.DefaultMode != 0o440 {
		t.Errorf("keys volume %+v, mounts %+v: want the Secret, mode 0440, read-only at %s", vol, c.VolumeMounts, KeyDir)
	}
	if psc.FSGroup == nil || *psc.FSGroup != *psc.RunAsUser {
		t.Errorf("fsGroup %v, want the agent's group, so it can read its key", psc.FSGroup)
	}

	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("container has no securityContext")
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Error("container runAsNonRoot not true")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("container readOnlyRootFilesystem not true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("container allowPrivilegeEscalation not false")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("container privileged")
	case sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0:
		t.Errorf("capabilities %+v, want drop ALL", sc.Capabilities)
	}

	wantRes := map[string]map[corev1.ResourceName]string{
		"requests": {corev1.ResourceCPU: "500m", corev1.ResourceMemory: "256Mi"},
		"limits":   {corev1.ResourceCPU: "2", corev1.ResourceMemory: "512Mi"},
	}
	for what, list := range map[string]corev1.ResourceList{"requests": c.Resources.Requests, "limits": c.Resources.Limits} {
		if len(list) != 2 {
			t.Errorf("%s %v, want cpu and memory", what, list)
		}
		for name, want := range wantRes[what] {
			if got := list[name]; got.Cmp(resource.MustParse(want)) != 0 {
				t.Errorf("%s %s = %s, want %s", what, name, got.String(), want)
			}
		}
	}
}

func TestManifestsSecret(t *testing.T) {
	spec := testSpec()
	job, secret := manifests(t, spec, testOptions())
	if secret.APIVersion != "v1" || secret.Kind != "Secret" || secret.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret %s %s type %s", secret.APIVersion, secret.Kind, secret.Type)
	}
	if secret.Name != SecretName(spec.RunID) || secret.Namespace != job.Namespace {
		t.Errorf("secret %s/%s", secret.Namespace, secret.Name)
	}
	// The Secret, and nothing else, carries each agent's key and the
	// certificate's fingerprint.
	if len(secret.Data) != spec.Agents+1 || string(secret.Data[CertKey]) != testCert {
		t.Errorf("secret data %q, want the fingerprint and %d keys", secret.Data, spec.Agents)
	}
	for i, k := range spec.Keys {
		if got := string(secret.Data[fmt.Sprintf("key-%d", i)]); got != k {
			t.Errorf("secret key-%d = %q, want agent %d's key", i, got, i)
		}
	}
	y, err := yaml.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range spec.Keys {
		if bytes.Contains(y, []byte(k)) {
			t.Errorf("the Job holds agent %d's key", i)
		}
	}
	if bytes.Contains(y, []byte(testCert)) {
		t.Error("the Job holds the fingerprint in clear")
	}
	if secret.Labels[RunIDLabel] != spec.RunID {
		t.Errorf("secret labels %v", secret.Labels)
	}
}

func TestManifestsDefaults(t *testing.T) {
	opts := Options{Image: "trigger:dev"}
	spec := testSpec()
	spec.Agents = 1
	job, _ := manifests(t, spec, opts)
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Resources.Requests) != 0 || len(c.Resources.Limits) != 0 {
		t.Errorf("resources %+v, want none", c.Resources)
	}
	if job.Spec.Template.Spec.NodeSelector != nil || job.Namespace != "" || c.ImagePullPolicy != "" {
		t.Errorf("nodeSelector %v namespace %q pull %q, want all unset", job.Spec.Template.Spec.NodeSelector, job.Namespace, c.ImagePullPolicy)
	}
	opts.DeadlineMargin = 5 * time.Second
	job, _ = manifests(t, spec, opts)
	if got := *job.Spec.ActiveDeadlineSeconds; got != 606 {
		t.Errorf("activeDeadlineSeconds %d with a 5 s margin, want 606", got)
	}
}

func TestManifestsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*fleet.AgentSpec, *Options)
		want string
	}{
		{"no image", func(_ *fleet.AgentSpec, o *Options) { o.Image = " " }, "image is required"},
		{"bad pull policy", func(_ *fleet.AgentSpec, o *Options) { o.ImagePullPolicy = "Sometimes" }, "pull policy"},
		{"bad cpu", func(_ *fleet.AgentSpec, o *Options) { o.Resources.CPURequest = "lots" }, `cpu request "lots"`},
		{"zero memory", func(_ *fleet.AgentSpec, o *Options) { o.Resources.MemoryLimit = "0" }, "not positive"},
		{"request above limit", func(_ *fleet.AgentSpec, o *Options) { o.Resources.CPURequest = "4" }, "above its limit"},
		{"no agents", func(s *fleet.AgentSpec, _ *Options) { s.Agents = 0 }, "at least 1"},
		{"no run id", func(s *fleet.AgentSpec, _ *Options) { s.RunID = "" }, "no id"},
		{"no coordinator", func(s *fleet.AgentSpec, _ *Options) { s.Coordinator = "" }, "--advertise"},
		{"plain http", func(s *fleet.AgentSpec, _ *Options) { s.Coordinator = "http://10.0.0.1:7070" }, "https://"},
		{"no max duration", func(s *fleet.AgentSpec, _ *Options) { s.MaxDuration = 0 }, "max duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, opts := testSpec(), testOptions()
			tc.edit(&spec, &opts)
			_, err := Manifests(spec, opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	long := strings.Repeat("very-long-scenario-name-", 5) + "20261130-234126"
	for _, id := range []string{
		"checkout-20261130-234126",
		"Checkout_Run.2026 11 30",
		long,
		long + "x",
		"---",
	} {
		job, secret, label := JobName(id), SecretName(id), RunLabelValue(id)
		if errs := validation.IsDNS1123Label(job); len(errs) > 0 || len(job) > maxNameLen {
			t.Errorf("JobName(%q) = %q: %v", id, job, errs)
		}
		if errs := validation.IsDNS1123Subdomain(secret); len(errs) > 0 {
			t.Errorf("SecretName(%q) = %q: %v", id, secret, errs)
		}
		if errs := validation.IsValidLabelValue(label); len(errs) > 0 || label == "" {
			t.Errorf("RunLabelValue(%q) = %q: %v", id, label, errs)
		}
		// A pod's hostname is the Job's name, '-' and its index.
		if host := job + "-99999"; len(validation.IsDNS1123Label(host)) > 0 {
			t.Errorf("hostname %q of JobName(%q) is not a DNS label", host, id)
		}
	}
	if got := RunLabelValue("checkout-20261130-234126"); got != "checkout-20261130-234126" {
		t.Errorf("a valid run id as label value changed to %q", got)
	}
	if JobName(long) == JobName(long+"x") || RunLabelValue(long) == RunLabelValue(long+"x") {
		t.Error("two long run ids that differ at the end got one name")
	}
	if JobName("Run-A") == JobName("run-a") {
		t.Error("run ids that differ in case got one Job name")
	}
	if got, want := Selector("checkout-20261130-234126"), "trigger.run-id=checkout-20261130-234126"; got != want {
		t.Errorf("Selector = %q, want %q", got, want)
	}
}

// The dry run's output is pinned in testdata; go test -update rewrites it.
func TestManifestsYAMLGolden(t *testing.T) {
	minimal := testSpec()
	minimal.Agents = 2
	minimal.RunID = "demo-20261130-234126"
	for _, tc := range []struct {
		file string
		spec fleet.AgentSpec
		opts Options
	}{
		{"dry-run.golden.yaml", testSpec(), testOptions()},
		{"dry-run-minimal.golden.yaml", minimal, Options{Image: "trigger:dev"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ManifestsYAML(tc.spec, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range append(tc.spec.Keys, testCert) {
				if bytes.Contains(got, []byte(k)) {
					t.Fatal("the dry run prints a key or the fingerprint")
				}
			}
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./fleet/kube -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("dry run differs from %s (go test ./fleet/kube -update rewrites it):\n%s", path, got)
			}
			// Each document reads back as the object Manifests returns,
			// the token aside.
			docs := strings.Split(string(got), "\n---\n")
			if len(docs) != 3 {
				t.Fatalf("%d documents after the comment, want 2", len(docs)-1)
			}
			job, secret := manifests(t, tc.spec, tc.opts)
			var backJob batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(docs[1]), &backJob); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&backJob, job) {
				t.Errorf("the Job read back from YAML differs from Manifests':\n%+v\n%+v", backJob, *job)
			}
			var backSecret corev1.Secret
			if err := yaml.UnmarshalStrict([]byte(docs[2]), &backSecret); err != nil {
				t.Fatal(err)
			}
			if backSecret.StringData[CertKey] != redacted || backSecret.StringData["key-0"] != redacted ||
				len(backSecret.StringData) != len(secret.Data) || len(backSecret.Data) != 0 || backSecret.Name != secret.Name {
				t.Errorf("dry-run secret %+v, want %s with the keys redacted", backSecret, secret.Name)
			}
		})
	}
}
