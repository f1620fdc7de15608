package cli

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/fleet/kube"
	"github.com/trigger-test/trigger/runner"
)

// fleetFlags are run's flags for spreading the load over agents.
type fleetFlags struct {
	workers           int
	engine            string
	listen, advertise string
	joinTimeout       time.Duration
	dryRun            bool
	// The kubernetes engine's: kube holds the plain ones; nodeSelector
	// (KEY=VALUE each), pullPolicy, cpu and memory are parsed into it.
	kube                    kube.Options
	nodeSelector            []string
	pullPolicy, cpu, memory string
}

// kubeJoinTimeout is how long a kubernetes run waits for every agent to
// be ready by default: pods are scheduled and images pulled first.
const kubeJoinTimeout = 5 * time.Minute

func (f *fleetFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.workers, "workers", 0, "spread the load over N agents started together (0: this process drives it); one driver holds about 16,000 attempts/s")
	fl.StringVar(&f.engine, "engine", "local", "how the agents are started: local (processes of this binary on this machine) or kubernetes (an Indexed Job)")
	fl.StringVar(&f.listen, "listen", "", "the coordinator's listening address for the agents (default 127.0.0.1:0)")
	fl.StringVar(&f.advertise, "advertise", "", "the base URL agents dial to reach the coordinator, https:// (they pin the certificate the coordinator makes for the run; default https:// and the listening address; required for kubernetes)")
	fl.DurationVar(&f.joinTimeout, "join-timeout", 0, "how long to wait for every agent to be ready before any load (default 30s local, 5m kubernetes)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "kubernetes: print the Job and Secret the run would create, and send nothing")
	fl.StringVar(&f.kube.Image, "image", "", "kubernetes: the agents' container image (its entrypoint is the trigger binary)")
	fl.StringVar(&f.kube.Namespace, "namespace", "", "kubernetes: the namespace of the Job (default: the kubeconfig context's)")
	fl.StringVar(&f.kube.Kubeconfig, "kubeconfig", "", "kubernetes: the kubeconfig file (default: in-cluster config, else $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.kube.Context, "kube-context", "", "kubernetes: the kubeconfig context to use")
	fl.StringVar(&f.kube.ServiceAccount, "service-account", "", "kubernetes: the agent pods' service account")
	fl.StringArrayVar(&f.nodeSelector, "node-selector", nil, "kubernetes: KEY=VALUE a node must carry to run an agent (repeatable)")
	fl.StringVar(&f.pullPolicy, "pull-policy", "", "kubernetes: Always, IfNotPresent or Never (default: Kubernetes')")
	fl.StringVar(&f.cpu, "agent-cpu", "", "kubernetes: CPU each agent requests and is limited to, e.g. 2 or 1500m")
	fl.StringVar(&f.memory, "agent-memory", "", "kubernetes: memory each agent requests and is limited to, e.g. 512Mi")
}

// options are the runner's fleet options, nil without --workers; the
// scenario's source, as the run read it, goes to each agent.
func (f *fleetFlags) options(test *convert.Test, path string, vars map[string]string, metricsAddr string) (*runner.FleetOptions, error) {
	usage := func(err error) error { return &ExitError{Code: ExitUsage, Err: err} }
	if f.workers == 0 {
		return nil, nil
	}
	if f.workers < 0 {
		return nil, usage(fmt.Errorf("--workers %d: want 1 or more", f.workers))
	}
	if metricsAddr != "" {
		return nil, usage(errors.New("--metrics-addr serves one driver's metrics; with --workers the agents' are not served"))
	}
	if err := checkAdvertise(f.advertise); err != nil {
		return nil, usage(err)
	}
	eng, err := f.newEngine()
	if err != nil {
		return nil, usage(err)
	}
	// The bytes the run read, not the file again: a pipe or a process
	// substitution gives them once.
	src := test.Scenario.Source
	join := f.joinTimeout
	if join == 0 && f.engine == "kubernetes" {
		join = kubeJoinTimeout
	}
	return &runner.FleetOptions{Engine: eng, Agents: f.workers, File: filepath.Base(path), Source: src, Vars: vars,
		RunID: runner.NewRunID(test.Run.Name), Listen: f.listen, Advertise: f.advertise, JoinTimeout: join}, nil
}

// newEngine makes the engine --engine names.
func (f *fleetFlags) newEngine() (fleet.Engine, error) {
	switch f.engine {
	case "local":
		return &fleet.LocalEngine{}, nil
	case "kubernetes":
		opts, err := f.kubeOptions()
		if err != nil {
			return nil, err
		}
		return kube.New(opts)
	}
	return nil, fmt.Errorf("--engine %q: want local or kubernetes", f.engine)
}

// kubeOptions are the kubernetes engine's options from the flags; its
// pods cannot reach a loopback coordinator, so --advertise is required,
// and so is --image.
func (f *fleetFlags) kubeOptions() (kube.Options, error) {
	o := f.kube
	if f.advertise == "" {
		return o, errors.New("--engine kubernetes: give --advertise https://HOST:PORT, an address of this coordinator the pods can reach, and --listen with its port")
	}
	if err := checkAdvertise(f.advertise); err != nil {
		return o, err
	}
	o.ImagePullPolicy = corev1.PullPolicy(f.pullPolicy)
	o.Resources = kube.Resources{CPURequest: f.cpu, CPULimit: f.cpu, MemoryRequest: f.memory, MemoryLimit: f.memory}
	for _, kv := range f.nodeSelector {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return o, fmt.Errorf("--node-selector %q: want KEY=VALUE", kv)
		}
		if o.NodeSelector == nil {
			o.NodeSelector = map[string]string{}
		}
		o.NodeSelector[k] = v
	}
	if o.Image == "" {
		return o, errors.New("--engine kubernetes: give --image, the agents' container image")
	}
	return o, nil
}

// printManifests writes what a kubernetes run would create (the keys
// redacted) for --dry-run, and sends nothing.
func (f *fleetFlags) printManifests(w io.Writer, test *convert.Test) error {
	switch {
	case f.workers < 1:
		return &ExitError{Code: ExitUsage, Err: errors.New("--dry-run prints the agents' manifests: it needs --workers N --engine kubernetes")}
	case f.engine != "kubernetes":
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--dry-run prints the manifests of --engine kubernetes; the %s engine has none", f.engine)}
	}
	opts, err := f.kubeOptions()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	fo := &runner.FleetOptions{Agents: f.workers, Advertise: f.advertise}
	y, err := kube.ManifestsYAML(runner.AgentSpecOf(test, fo), opts)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	_, err = w.Write(y)
	return err
}

// checkAdvertise refuses an --advertise URL that is not https://: the
// agents speak TLS to the coordinator and pin its certificate.
func checkAdvertise(adv string) error {
	if adv == "" {
		return nil
	}
	if u, err := url.Parse(adv); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--advertise %q: want https://HOST:PORT (the agents speak TLS to the coordinator, pinning the certificate it makes for the run)", adv)
	}
	return nil
}
