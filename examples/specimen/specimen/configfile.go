package specimen

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/trigger-test/trigger/vocab"
)

// fileConfig is the HCL schema of a specimen config file (see
// examples/specimen/specimen.hcl). Every attribute is optional; a gateway
// or autoscaler block turns that layer on unless it says enabled = false.
type fileConfig struct {
	Pods        *int     `hcl:"pods,optional"`
	PodRate     *float64 `hcl:"pod_rate,optional"`
	ServiceTime *string  `hcl:"service_time,optional"`
	Queue       *string  `hcl:"queue,optional"`
	Balancer    *string  `hcl:"balancer,optional"`
	MaxQueue    *int     `hcl:"max_queue,optional"`
	Seed        *int64   `hcl:"seed,optional"`

	Defences   *fileDefences   `hcl:"defences,block"`
	GRPC       *fileGRPC       `hcl:"grpc,block"`
	Gateway    *fileGateway    `hcl:"gateway,block"`
	Autoscaler *fileAutoscaler `hcl:"autoscaler,block"`
}

type fileDefences struct {
	AdmissionBound      *string `hcl:"admission_bound,optional"`
	RetryAfter          *string `hcl:"retry_after,optional"`
	DeadlinePropagation *bool   `hcl:"deadline_propagation,optional"`
	CancelOnDisconnect  *bool   `hcl:"cancel_on_disconnect,optional"`
	Discipline          *string `hcl:"discipline,optional"`
	CoDel               *bool   `hcl:"codel,optional"`
	CoDelTarget         *string `hcl:"codel_target,optional"`
	CoDelInterval       *string `hcl:"codel_interval,optional"`
	Limit               *int    `hcl:"limit,optional"`
	LimitQueue          *int    `hcl:"limit_queue,optional"`
	LimitStatus         *int    `hcl:"limit_status,optional"`
}

type fileGRPC struct {
	Addr            *string `hcl:"addr,optional"`
	HonourDeadlines *bool   `hcl:"honour_deadlines,optional"`
}

type fileGateway struct {
	Enabled            *bool   `hcl:"enabled,optional"`
	Retries            *int    `hcl:"retries,optional"`
	TryTimeout         *string `hcl:"try_timeout,optional"`
	RetryOn5xx         *bool   `hcl:"retry_on_5xx,optional"`
	CancelOnClientGone *bool   `hcl:"cancel_on_client_gone,optional"`
	MaxInFlight        *int    `hcl:"max_in_flight,optional"`
}

type fileAutoscaler struct {
	Enabled                *bool    `hcl:"enabled,optional"`
	Signal                 *string  `hcl:"signal,optional"`
	Target                 *float64 `hcl:"target,optional"`
	SyncPeriod             *string  `hcl:"sync_period,optional"`
	MetricWindow           *string  `hcl:"metric_window,optional"`
	Tolerance              *float64 `hcl:"tolerance,optional"`
	ScaleUpFactor          *float64 `hcl:"scale_up_factor,optional"`
	DeadTime               *string  `hcl:"dead_time,optional"`
	DownscaleStabilization *string  `hcl:"downscale_stabilization,optional"`
	MinReplicas            *int     `hcl:"min_replicas,optional"`
	MaxReplicas            *int     `hcl:"max_replicas,optional"`
}

// LoadConfigFile reads an HCL config file onto base: attributes present in
// the file replace base's fields, absent ones keep them. Errors carry
// file:line:col diagnostics.
func LoadConfigFile(path string, base Config) (Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("specimen: config: %w", err)
	}
	return ParseConfig(src, path, base)
}

// ParseConfig decodes HCL source src (named filename in diagnostics) onto
// base, as LoadConfigFile does.
func ParseConfig(src []byte, filename string, base Config) (Config, error) {
	p := hclparse.NewParser()
	f, diags := p.ParseHCL(src, filename)
	if diags.HasErrors() {
		return base, diagError(p, diags)
	}
	var fc fileConfig
	if diags := gohcl.DecodeBody(f.Body, nil, &fc); diags.HasErrors() {
		return base, diagError(p, diags)
	}
	c := base
	var errs []error
	dur := func(dst *time.Duration, s *string, name string) {
		if s == nil {
			return
		}
		d, err := time.ParseDuration(*s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		*dst = d
	}
	set(&c.Pods, fc.Pods)
	set(&c.PodRate, fc.PodRate)
	enum := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	enum("service_time", setParsed(&c.ServiceTime, fc.ServiceTime, vocab.ParseServiceTime))
	enum("queue", setParsed(&c.QueueMode, fc.Queue, vocab.ParseQueue))
	setString(&c.Balancer, fc.Balancer)
	set(&c.MaxQueue, fc.MaxQueue)
	if fc.Seed != nil {
		c.Seed = uint64(*fc.Seed)
	}
	if d := fc.Defences; d != nil {
		dur(&c.AdmissionBound, d.AdmissionBound, "defences.admission_bound")
		dur(&c.RetryAfter, d.RetryAfter, "defences.retry_after")
		set(&c.DeadlinePropagation, d.DeadlinePropagation)
		set(&c.CancelOnDisconnect, d.CancelOnDisconnect)
		enum("defences.discipline", setParsed(&c.Discipline, d.Discipline, vocab.ParseDiscipline))
		set(&c.CoDel, d.CoDel)
		dur(&c.CoDelTarget, d.CoDelTarget, "defences.codel_target")
		dur(&c.CoDelInterval, d.CoDelInterval, "defences.codel_interval")
		set(&c.Limit, d.Limit)
		set(&c.LimitQueue, d.LimitQueue)
		set(&c.LimitStatus, d.LimitStatus)
	}
	if g := fc.GRPC; g != nil {
		set(&c.GRPCAddr, g.Addr)
		set(&c.GRPCHonourDeadlines, g.HonourDeadlines)
	}
	if g := fc.Gateway; g != nil {
		c.Gateway.Enabled = true
		set(&c.Gateway.Enabled, g.Enabled)
		set(&c.Gateway.Retries, g.Retries)
		dur(&c.Gateway.TryTimeout, g.TryTimeout, "gateway.try_timeout")
		set(&c.Gateway.RetryOn5xx, g.RetryOn5xx)
		set(&c.Gateway.CancelOnClientGone, g.CancelOnClientGone)
		set(&c.Gateway.MaxInFlight, g.MaxInFlight)
	}
	if a := fc.Autoscaler; a != nil {
		s := &c.Autoscaler
		s.Enabled = true
		set(&s.Enabled, a.Enabled)
		setString(&s.Signal, a.Signal)
		set(&s.Target, a.Target)
		dur(&s.SyncPeriod, a.SyncPeriod, "autoscaler.sync_period")
		dur(&s.MetricWindow, a.MetricWindow, "autoscaler.metric_window")
		set(&s.Tolerance, a.Tolerance)
		set(&s.ScaleUpFactor, a.ScaleUpFactor)
		dur(&s.DeadTime, a.DeadTime, "autoscaler.dead_time")
		dur(&s.DownscaleStabilization, a.DownscaleStabilization, "autoscaler.downscale_stabilization")
		set(&s.MinReplicas, a.MinReplicas)
		set(&s.MaxReplicas, a.MaxReplicas)
	}
	if len(errs) > 0 {
		return base, fmt.Errorf("specimen: config %s: %w", filename, errs[0])
	}
	return c, nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setString[T ~string](dst *T, v *string) {
	if v != nil {
		*dst = T(*v)
	}
}

// setParsed sets *dst to parse(*v) when v is given and parses.
func setParsed[T any](dst *T, v *string, parse func(string) (T, error)) error {
	if v == nil {
		return nil
	}
	x, err := parse(*v)
	if err != nil {
		return err
	}
	*dst = x
	return nil
}

// diagError renders HCL diagnostics with their source lines.
func diagError(p *hclparse.Parser, diags hcl.Diagnostics) error {
	var buf bytes.Buffer
	for _, d := range diags {
		if d.Subject != nil {
			fmt.Fprintf(&buf, "%s: ", d.Subject)
		}
		fmt.Fprintf(&buf, "%s; %s\n", d.Summary, d.Detail)
	}
	w := hcl.NewDiagnosticTextWriter(&buf, p.Files(), 100, false)
	_ = w.WriteDiagnostics(diags)
	return fmt.Errorf("specimen: config: %w", diagsErr{msg: buf.String(), diags: diags})
}

type diagsErr struct {
	msg   string
	diags hcl.Diagnostics
}

func (e diagsErr) Error() string { return e.msg }
func (e diagsErr) Unwrap() error { return e.diags }
