package kube

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/fleet"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Labels and keys the engine puts on what it creates.
const (
	// RunIDLabel carries the run's id (made a valid label value) on the
	// Job, its pods and the Secret: `kubectl delete job -l
	// trigger.run-id=ID` removes a run's agents.
	RunIDLabel = "trigger.run-id"
	// RunIDAnnotation carries the run's id unchanged.
	RunIDAnnotation = "trigger.run-id"
	// CertKey is the Secret's key holding the fingerprint of the
	// coordinator's certificate, which the agents pin (fleet.CertEnv).
	CertKey = "cert-sha256"
	// AgentKeyPrefix and the agent's index are the Secret's key holding
	// that agent's key; the pods mount the Secret at KeyDir and read
	// their own with --key-file.
	AgentKeyPrefix = "key-"
	// KeyDir is where the agent pods mount the Secret's keys.
	KeyDir = "/var/run/trigger"
	// ContainerName is the agent container's name.
	ContainerName = "agent"
	// IndexEnv is the env var holding the pod's completion index, from
	// the downward API; the container's args expand it.
	IndexEnv = "JOB_COMPLETION_INDEX"
)

// redacted replaces the keys and the fingerprint in the dry run's Secret.
const redacted = "REDACTED"

// Fixed parts of every agent pod.
const (
	// ttlAfterFinished is how long a finished Job (one whose coordinator
	// was killed before it could delete it) is kept, in seconds.
	ttlAfterFinished = 3600
	// terminationGrace is how long an agent has after SIGTERM, in seconds.
	terminationGrace = 10
	// nonRootID is the user and group the agents run as (distroless'
	// nonroot), so runAsNonRoot holds for any image.
	nonRootID = 65532
	// maxNameLen keeps the Job's name short enough for its pods'
	// hostnames (name-index, at most 63 characters).
	maxNameLen = 52
)

// JobName is the name of the run's Job (a DNS label derived from the run's id).
func JobName(runID string) string { return dnsName("trigger-"+runID, maxNameLen) }

// SecretName is the name of the Secret holding the run's agent keys and
// certificate fingerprint.
func SecretName(runID string) string { return JobName(runID) + "-keys" }

// RunLabelValue is the run's id made a valid label value: RunIDLabel's value.
func RunLabelValue(runID string) string { return labelValue(runID) }

// Selector is the label selector of everything a run created, e.g.
// "trigger.run-id=demo-20261130-234126".
func Selector(runID string) string { return RunIDLabel + "=" + labelValue(runID) }

// Manifests returns the Job and the Secret that Start creates for spec, in
// that order (the Secret holds spec.Keys and spec.CertSHA256, which no
// argument and no plain env value of the Job carries; Start adds its owner reference
// to the Job once the Job exists). The dry run prints them with
// ManifestsYAML.
func Manifests(spec fleet.AgentSpec, opts Options) ([]runtime.Object, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if spec.RunID == "" {
		return nil, errors.New("kubernetes: the run has no id")
	}
	if spec.Agents < 1 {
		return nil, fmt.Errorf("kubernetes: %d agents: want at least 1", spec.Agents)
	}
	if spec.Coordinator == "" {
		return nil, errors.New("kubernetes: no coordinator URL for the agents to dial (--advertise)")
	}
	if !strings.HasPrefix(spec.Coordinator, "https://") {
		return nil, fmt.Errorf("kubernetes: --advertise %q: want an https:// URL (the agents speak TLS to the coordinator)", spec.Coordinator)
	}
	if spec.MaxDuration <= 0 {
		return nil, errors.New("kubernetes: the run has no max duration: the Job's deadline needs one")
	}
	res, err := opts.Resources.requirements()
	if err != nil {
		return nil, err
	}
	margin := opts.DeadlineMargin
	if margin == 0 {
		margin = DefaultDeadlineMargin
	}
	deadline := int64(math.Ceil((spec.MaxDuration + margin).Seconds()))

	name, secretName := JobName(spec.RunID), SecretName(spec.RunID)
	labels := map[string]string{
		RunIDLabel:                     labelValue(spec.RunID),
		"app.kubernetes.io/name":       "trigger",
		"app.kubernetes.io/component":  "agent",
		"app.kubernetes.io/managed-by": "trigger",
	}
	meta := func(n string) metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name:        n,
			Namespace:   opts.Namespace,
			Labels:      copyMap(labels),
			Annotations: map[string]string{RunIDAnnotation: spec.RunID},
		}
	}
	n := int32(spec.Agents)
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(name),
		Spec: batchv1.JobSpec{
			CompletionMode:          ptr(batchv1.IndexedCompletion),
			Completions:             ptr(n),
			Parallelism:             ptr(n),
			BackoffLimit:            ptr(int32(0)),
			ActiveDeadlineSeconds:   ptr(deadline),
			TTLSecondsAfterFinished: ptr(int32(ttlAfterFinished)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      copyMap(labels),
					Annotations: map[string]string{RunIDAnnotation: spec.RunID},
				},
				Spec: podSpec(spec, opts, secretName, res),
			},
		},
	}
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: meta(secretName),
		Type:       corev1.SecretTypeOpaque,
		Data:       secretData(spec),
	}
	return []runtime.Object{job, secret}, nil
}

// secretData is the Secret's content: the certificate's fingerprint and
// each agent's key (empty ones in a dry run, which has none yet).
func secretData(spec fleet.AgentSpec) map[string][]byte {
	data := map[string][]byte{CertKey: []byte(spec.CertSHA256)}
	for i := range spec.Agents {
		var k string
		if i < len(spec.Keys) {
			k = spec.Keys[i]
		}
		data[AgentKeyPrefix+strconv.Itoa(i)] = []byte(k)
	}
	return data
}

// podSpec is the agent pod: one non-root container with a read-only root
// file system, no capabilities and no service account token.
func podSpec(spec fleet.AgentSpec, opts Options, secretName string, res corev1.ResourceRequirements) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		ServiceAccountName:            opts.ServiceAccount,
		AutomountServiceAccountToken:  ptr(false),
		NodeSelector:                  copyMap(opts.NodeSelector),
		TerminationGracePeriodSeconds: ptr(int64(terminationGrace)),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr(true),
			RunAsUser:    ptr(int64(nonRootID)),
			RunAsGroup:   ptr(int64(nonRootID)),
			// The keys' files are the group's (0440): readable by the
			// agent, which is no root.
			FSGroup:        ptr(int64(nonRootID)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:            ContainerName,
			Image:           opts.Image,
			ImagePullPolicy: opts.ImagePullPolicy,
			Args:            indexedArgs(spec),
			Env: []corev1.EnvVar{
				{
					Name: IndexEnv,
					ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
						FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']",
					}},
				},
				{
					Name: fleet.CertEnv,
					ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: secretName},
						Key:                  CertKey,
					}},
				},
			},
			Resources: res,
			SecurityContext: &corev1.SecurityContext{
				RunAsNonRoot:             ptr(true),
				ReadOnlyRootFilesystem:   ptr(true),
				AllowPrivilegeEscalation: ptr(false),
				Privileged:               ptr(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "tmp", MountPath: "/tmp"},
				{Name: keysVolume, MountPath: KeyDir, ReadOnly: true},
			},
		}},
		Volumes: []corev1.Volume{
			{
				Name: "tmp",
				VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
					SizeLimit: ptr(resource.MustParse("64Mi")),
				}},
			},
			{
				Name: keysVolume,
				VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
					SecretName:  secretName,
					DefaultMode: ptr(int32(0o440)),
				}},
			},
		},
	}
}

// keysVolume is the name of the volume of the Secret's keys.
const keysVolume = "keys"

// indexedArgs is spec.Command with the index replaced by a reference to
// IndexEnv, and --key-file naming that agent's key in KeyDir: every pod
// of an Indexed Job gets the same args, and the kubelet expands
// $(JOB_COMPLETION_INDEX) to each pod's own index. The args name the
// key's file, never the key.
func indexedArgs(spec fleet.AgentSpec) []string {
	idx := "$(" + IndexEnv + ")"
	args := spec.Command(0)
	found := false
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--index" {
			args[i+1], found = idx, true
		}
	}
	if !found {
		args = append(args, "--index", idx)
	}
	return append(args, fleet.KeyFileFlag, KeyDir+"/"+AgentKeyPrefix+idx)
}

// ManifestsYAML renders Manifests as a multi-document YAML stream with the
// Secret's values replaced by REDACTED: what --dry-run prints.
func ManifestsYAML(spec fleet.AgentSpec, opts Options) ([]byte, error) {
	objs, err := Manifests(spec, opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# trigger run %s: %d agents (dry run: nothing was created; the keys are redacted,\n", spec.RunID, spec.Agents)
	buf.WriteString("# and a real run makes the Secret owned by the Job)\n")
	for _, obj := range objs {
		if s, ok := obj.(*corev1.Secret); ok {
			s = s.DeepCopy()
			s.StringData = map[string]string{}
			for k := range s.Data {
				s.StringData[k] = redacted
			}
			s.Data = nil
			obj = s
		}
		b, err := toYAML(obj)
		if err != nil {
			return nil, fmt.Errorf("kubernetes: manifest as YAML: %w", err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// toYAML is obj as YAML without its empty status, which a manifest does
// not set.
func toYAML(obj runtime.Object) ([]byte, error) {
	b, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if st, ok := m["status"].(map[string]any); ok && len(st) == 0 {
		delete(m, "status")
	}
	return yaml.Marshal(m)
}

// dnsName makes s a DNS-1123 label of at most max characters: lower case,
// runs of other characters as one '-', and, when that changed or cut it, a
// hash of s at the end so distinct ids stay distinct.
func dnsName(s string, max int) string {
	clean := sanitize(strings.ToLower(s), func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
	})
	if clean == s && len(clean) <= max {
		return clean
	}
	return withHash(clean, s, max)
}

// labelValue makes s a valid label value (at most 63 of [A-Za-z0-9_.-],
// alphanumeric at both ends), keeping it when it already is one.
func labelValue(s string) string {
	const max = 63
	clean := sanitize(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.'
	})
	if clean == s && len(clean) <= max {
		return clean
	}
	return withHash(clean, s, max)
}

// sanitize replaces each run of characters that ok refuses by one '-' and
// trims non-alphanumerics from both ends.
func sanitize(s string, ok func(rune) bool) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if ok(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return trimEnds(b.String())
}

// withHash cuts clean so that "-" and 8 hex digits of orig's hash fit in max.
func withHash(clean, orig string, max int) string {
	sum := sha256.Sum256([]byte(orig))
	h := hex.EncodeToString(sum[:4])
	if len(clean) > max-len(h)-1 {
		clean = trimEnds(clean[:max-len(h)-1])
	}
	if clean == "" {
		return "t" + h
	}
	return clean + "-" + h
}

// trimEnds drops characters that are not letters or digits from both ends.
func trimEnds(s string) string {
	other := func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}
	return strings.TrimRightFunc(strings.TrimLeftFunc(s, other), other)
}

func ptr[T any](v T) *T { return &v }

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
