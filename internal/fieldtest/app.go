package fieldtest

import (
	"time"

	"github.com/trigger-test/trigger/analysis"
)

// AppServer is how a small Python service is usually watched: Prometheus
// scraping every 10 s, rate windows of 30 s.
var AppServer = Signals{Name: "10s/[30s]", ScrapeInterval: 10 * time.Second, Window: "30s"}

// appCapacity is the uWSGI stack's C: one worker, 10 ms a request.
const appCapacity = 100

// appTryTimeout is haproxy's per-try timeout in front of uWSGI: its two
// tries (one retry) end after 0.8 s, before the clients' 1 s, so the
// clients see 504s.
const appTryTimeout = 400 * time.Millisecond

// AppCases are the cases on an application server nobody here wrote:
// Debian's uWSGI serving a WSGI app with one worker of one thread, 10 ms
// a request (C = 100/s), FIFO from the kernel's accept backlog, serving
// requests whose clients already left; its prometheus_client counters
// count a request when the worker starts it and when it ends it, so they
// see nothing of what waits in the backlog; no wait gauge; tracers on;
// Prometheus at AppServer's resolution. The truth is counted at the
// service: the requests uWSGI handled plus its accept backlog.
func AppCases() []Case {
	trap := Case{App: true, Baseline: 40, Multiplier: 4, Spike: 5 * time.Second, Tracers: true, IngressFrom: "app",
		Want: analysis.VerdictTrapped, Observe: 2 * time.Minute, AFailNull: true, GateFails: true, TrueA: 3}
	// A·ρ = 3 × 0.2 = 0.6: the failed state drains at 0.4 s/s.
	recovering := Case{App: true, Baseline: 20, Multiplier: 10, Spike: 3 * time.Second, Tracers: true, IngressFrom: "app",
		Want: analysis.VerdictRecovered, Observe: 90 * time.Second, TrueA: 3}
	// Behind haproxy's hidden ×2: A = 6, A·ρ = 6 × 0.18 = 1.08. Tracers
	// get the 504s and the counters see only what the worker handles:
	// no wait signal can show the trap, the clients can.
	proxied := Case{App: true, Proxy: true, TryTimeout: appTryTimeout, Baseline: 18, Multiplier: 8, Spike: 3 * time.Second, Tracers: true,
		IngressFrom: "app", Want: analysis.VerdictTrapped, AlsoRight: analysis.VerdictMetastable, Observe: 90 * time.Second,
		AFailNull: true, GateFails: true, TrueA: 6}
	budget := proxied
	budget.Budget = 40 * time.Second
	exporter := proxied
	exporter.IngressFrom, exporter.AFailNull, exporter.WantHidden, exporter.AlsoRight, exporter.Observe = "proxy", false, true, "", 2*time.Minute
	restart := trap
	restart.IngressFrom, restart.Restart, restart.AFailNull = "driver", true, false
	named := func(c Case, name, what string) Case { c.Name, c.What = name, what; return c }
	return []Case{
		named(trap, "app-trap", "uWSGI direct, A·ρ = 1.2; ingress from the app's own counter, behind the queue"),
		named(recovering, "app-recovery", "uWSGI direct, A·ρ = 0.6"),
		named(proxied, "app-proxy-trap", "uWSGI behind haproxy's hidden ×2 (504 after 0.8 s), A·ρ = 1.08; no gauge, tracers blind, counters behind the queue"),
		named(budget, "app-proxy-trap-budget", "the same with max_recovery = 40s"),
		named(exporter, "app-proxy-trap-exporter", "the same with ingress from haproxy's exporter, before the queue"),
		named(restart, "app-trap-restarted", "uWSGI restarted just before the run; ingress and first attempts from the driver's trigger_* series"),
	}
}
