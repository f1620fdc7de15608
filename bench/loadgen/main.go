// Command loadgen-bench measures the spike driver on loopback: the highest
// rate it sustains (for the side-by-side with vegeta that run.sh drives),
// its dispatch lag, and a timeout storm (memory per in-flight attempt, file
// descriptors, TIME_WAIT sockets, schedule kept). Every mode is bounded in
// time and talks to 127.0.0.0/8 only.
//
//	loadgen-bench target -addr 127.0.0.1:8099 -mode fast|hang
//	loadgen-bench drive  -url http://127.0.0.1:8099/ -rate 5000 -duration 10s
//	loadgen-bench storm  -url http://127.0.0.1:8098/ -rate 2000 -timeout 1s -duration 60s
//	loadgen-bench compare -vegeta /tmp/x/vegeta -url http://127.0.0.1:8099/ -rates 2000,4000
//	loadgen-bench cpu -vegeta /tmp/x/vegeta -url http://127.0.0.1:8099/ -rate 10000 -duration 20s -trials 3
//
// drive, storm, compare and cpu print one JSON object on stdout (compare
// also a line per rate on stderr, cpu a table).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadgen-bench target|drive|storm|compare|cpu [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "target":
		err = target(ctx, os.Args[2:])
	case "drive":
		err = drive(ctx, os.Args[2:])
	case "storm":
		err = storm(ctx, os.Args[2:])
	case "compare":
		err = compare(ctx, os.Args[2:])
	case "cpu":
		err = cpuCompare(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen-bench:", err)
		os.Exit(1)
	}
}

// loopbackURL refuses any target outside 127.0.0.0/8 and ::1.
func loopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("target %q is not a loopback address", raw)
	}
	return nil
}

// target serves a fast 200 ("fast") or holds every request until the client
// gives up, at most 30 s ("hang", "silent"), for at most -max.
func target(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("target", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8099", "listen address (loopback)")
	mode := fs.String("mode", "fast", "fast, hang (never answers; writes an empty response once the client left) or silent (never answers, closes without a response once the client left)")
	maxRun := fs.Duration("max", 30*time.Minute, "stop after this long")
	h2c := fs.Bool("h2c", false, "also speak unencrypted HTTP/2 (prior knowledge)")
	fs.Parse(args)
	if err := loopbackURL("http://" + *addr); err != nil {
		return err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if *mode == "silent" {
			// Never answer, and when the client gives up close without a
			// word: the client closed first, so its socket goes to TIME_WAIT
			// (a hanging net/http handler instead writes an empty response
			// after the client left, which the client answers with a reset).
			c, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			io.Copy(io.Discard, c)
			c.Close()
			return
		}
		if *mode == "hang" {
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok\n")
	})
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if *h2c {
		var p http.Protocols
		p.SetHTTP1(true)
		p.SetUnencryptedHTTP2(true)
		srv.Protocols = &p
		srv.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 1000}
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Println("listening", l.Addr())
	ctx, cancel := context.WithTimeout(ctx, *maxRun)
	defer cancel()
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(l); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// driveResult is what drive prints.
type driveResult struct {
	Rate         float64 `json:"target_rate_per_s"`
	Achieved     float64 `json:"achieved_rate_per_s"`
	Planned      int64   `json:"planned"`
	Sent         int64   `json:"sent"`
	OK           int64   `json:"ok"`
	Success      float64 `json:"success_ratio"`
	Dropped      int64   `json:"dropped"`
	Refused      int64   `json:"refused"`
	LagP50Ms     float64 `json:"lag_p50_ms"`
	LagP99Ms     float64 `json:"lag_p99_ms"`
	LagMaxMs     float64 `json:"lag_max_ms"`
	LatencyP50Ms float64 `json:"latency_p50_ms"`
	LatencyP99Ms float64 `json:"latency_p99_ms"`
	MaxRSSMiB    float64 `json:"max_rss_mib"`
}

// drive runs the driver at a constant rate against a fast target.
func drive(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("drive", flag.ExitOnError)
	u := fs.String("url", "http://127.0.0.1:8099/", "target (loopback)")
	rate := fs.Float64("rate", 1000, "first attempts per second")
	dur := fs.Duration("duration", 10*time.Second, "schedule length")
	timeout := fs.Duration("timeout", 10*time.Second, "per-attempt timeout")
	arrivals := fs.String("arrivals", "uniform", "uniform or poisson")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile here")
	perSecond := fs.Bool("timeline", false, "print the per-second timeline on stderr")
	maxLag := fs.Duration("max-lag", 0, "catch-up bound (0: the driver's default, 1 s)")
	netHTTP := fs.Bool("nethttp", false, "use net/http's Transport (loadgen.NewTransport) instead of the default LeanTransport")
	mix := fs.Bool("mix", false, "a three-request mix (weights 6:3:1: a POST whose Idempotency-Key and JSON body hold per-request values (request.id, request.seq, random.uuid, random::int, a data column), a GET whose query holds a data column, a PUT with a body, each with its own path and headers) instead of one GET")
	fs.Parse(args)
	var driveRT http.RoundTripper // nil: the driver's default
	if *netHTTP {
		driveRT = loadgen.NewTransport(loadgen.DefaultTransportOptions())
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if err := loopbackURL(*u); err != nil {
		return err
	}
	arr, err := vocab.ParseArrivals(*arrivals)
	if err != nil {
		return err
	}
	var requests []loadgen.Request
	var slots []vocab.Slot
	var data []vocab.DataSet
	if *mix {
		requests, slots, data = benchMix(strings.TrimSuffix(*u, "/"))
	}
	d, err := loadgen.NewDriver(loadgen.Config{
		Request:   loadgen.Request{URL: *u},
		Mix:       requests,
		Slots:     slots,
		Data:      data,
		Stages:    []loadgen.Stage{loadgen.Constant(*dur, *rate)},
		Arrivals:  arr,
		Timeout:   *timeout,
		MaxLag:    *maxLag,
		Transport: driveRT,
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *dur+2**timeout+10*time.Second)
	defer cancel()
	if err := d.Run(ctx); err != nil {
		return err
	}
	if *perSecond {
		for _, s := range d.Timeline() {
			fmt.Fprintf(os.Stderr, "t=%3d planned %6d sent %6d dropped %6d ok %6d in flight %5d lag p50 %7.3f p99 %8.3f ms latency p99 %8.3f ms\n",
				s.Index, s.Planned, s.Sent, s.Dropped, s.FirstOutcomes[vocab.OutcomeOK], s.InFlight, s.Lag.P50*1e3, s.Lag.P99*1e3, s.Latency.P99*1e3)
		}
	}
	t := d.Totals()
	res := driveResult{
		Rate: *rate, Achieved: t.AchievedRate(), Planned: t.Planned, Sent: t.Sent,
		OK: t.FirstOutcomes[vocab.OutcomeOK], Dropped: t.Dropped, Refused: t.Refused,
		LagP50Ms: t.Lag.P50 * 1e3, LagP99Ms: t.Lag.P99 * 1e3, LagMaxMs: t.Lag.Max * 1e3,
		LatencyP50Ms: t.Latency.P50 * 1e3, LatencyP99Ms: t.Latency.P99 * 1e3,
		MaxRSSMiB: float64(procStatus("VmHWM")) / 1024,
	}
	if t.Sent > 0 {
		res.Success = float64(res.OK) / float64(t.Sent)
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// stormSample is one second of a storm.
type stormSample struct {
	T        int     `json:"t_s"`
	Sent     int64   `json:"sent"`
	Dropped  int64   `json:"dropped"`
	Timeouts int64   `json:"timeouts"`
	Connect  int64   `json:"connect_errors"`
	InFlight int64   `json:"in_flight"`
	RSSMiB   float64 `json:"rss_mib"`
	FDs      int     `json:"fds"`
	TimeWait int     `json:"time_wait"` // client sockets to the target's port in TIME_WAIT
	LagP99Ms float64 `json:"lag_p99_ms"`
	// Go runtime view, MiB: heap objects (live and not yet swept), live heap at the last GC, goroutine stacks; goroutines.
	HeapAllocMiB float64 `json:"heap_objects_mib"`
	HeapInuseMiB float64 `json:"heap_live_mib"`
	StackMiB     float64 `json:"stack_inuse_mib"`
	Goroutines   int     `json:"goroutines"`
}

// stormResult is what storm prints.
type stormResult struct {
	Rate           float64          `json:"rate_per_s"`
	TimeoutS       float64          `json:"timeout_s"`
	Linger0        bool             `json:"linger0"`
	SourceAddrs    int              `json:"source_addrs"`
	HTTP2          bool             `json:"http2"`
	Lean           bool             `json:"lean"`
	Planned        int64            `json:"planned"`
	Sent           int64            `json:"sent"`
	Dropped        int64            `json:"dropped"`
	Refused        int64            `json:"refused"`
	Outcomes       map[string]int64 `json:"outcomes"`
	AchievedRate   float64          `json:"achieved_rate_per_s"`
	LagP99Ms       float64          `json:"lag_p99_ms"`
	LagMaxMs       float64          `json:"lag_max_ms"`
	BaseRSSMiB     float64          `json:"base_rss_mib"`
	MeanRSSMiB     float64          `json:"mean_rss_mib_steady"`
	MeanInFlight   float64          `json:"mean_in_flight_steady"`
	KiBPerInFlight float64          `json:"kib_per_in_flight"`
	MaxFDs         int              `json:"max_fds"`
	MaxTimeWait    int              `json:"max_time_wait"`
	TimeWaitBefore int              `json:"time_wait_before"`
	Samples        []stormSample    `json:"samples,omitempty"`
}

// storm drives a never-answering target: every attempt times out, no retries.
func storm(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("storm", flag.ExitOnError)
	u := fs.String("url", "http://127.0.0.1:8099/", "never-answering target (loopback)")
	rate := fs.Float64("rate", 2000, "first attempts per second")
	dur := fs.Duration("duration", 60*time.Second, "schedule length")
	timeout := fs.Duration("timeout", time.Second, "per-attempt timeout")
	linger0 := fs.Bool("linger0", true, "SO_LINGER 0 on client sockets")
	sources := fs.Int("sources", 1, "source addresses spread over 127.0.1.x")
	h2 := fs.Bool("h2", false, "HTTP/2 only (h2c prior knowledge for http://)")
	lean := fs.Bool("lean", false, "use loadgen.LeanTransport instead of net/http's Transport")
	samples := fs.Bool("samples", false, "print per-second samples")
	memprof := fs.String("memprofile", "", "write a heap profile here in the middle of the storm")
	fs.Parse(args)
	if err := loopbackURL(*u); err != nil {
		return err
	}
	pu, err := url.Parse(*u)
	if err != nil {
		return err
	}
	port, _ := strconv.Atoi(pu.Port())
	if port == 0 {
		port = 80
	}
	opts := loadgen.TransportOptions{Linger0: *linger0, SourceAddrs: *sources, HTTP2: *h2}
	var tr http.RoundTripper = loadgen.NewTransport(opts)
	if *lean {
		tr = loadgen.NewLeanTransport(opts)
	}
	d, err := loadgen.NewDriver(loadgen.Config{
		Request:   loadgen.Request{URL: *u},
		Stages:    []loadgen.Stage{loadgen.Constant(*dur, *rate)},
		Arrivals:  vocab.Uniform,
		Timeout:   *timeout,
		Transport: tr,
	})
	if err != nil {
		return err
	}
	runtime.GC()
	res := stormResult{Rate: *rate, TimeoutS: timeout.Seconds(), Linger0: *linger0, SourceAddrs: *sources, HTTP2: *h2, Lean: *lean,
		BaseRSSMiB: float64(procStatus("VmRSS")) / 1024}
	res.TimeWaitBefore = countTimeWait(port)
	ctx, cancel := context.WithTimeout(ctx, *dur+*timeout+30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var rssSum, inflSum float64
	var n int
	steadyFrom, steadyTo := *timeout+2*time.Second, *dur-time.Second
loop:
	for {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			break loop
		case <-tick.C:
			tl := d.Timeline()
			if len(tl) == 0 {
				continue
			}
			s := tl[len(tl)-1]
			smp := stormSample{T: s.Index, Sent: s.Sent, Dropped: s.Dropped, Timeouts: s.FirstOutcomes[vocab.OutcomeTimeout],
				Connect: s.FirstOutcomes[vocab.OutcomeConnect], InFlight: s.InFlight, RSSMiB: float64(procStatus("VmRSS")) / 1024,
				FDs: countFDs(), TimeWait: countTimeWait(port), LagP99Ms: s.Lag.P99 * 1e3}
			metrics.Read(rtSamples)
			smp.HeapAllocMiB = mib(rtSamples[0].Value.Uint64())
			smp.HeapInuseMiB = mib(rtSamples[1].Value.Uint64())
			smp.StackMiB = mib(rtSamples[2].Value.Uint64())
			smp.Goroutines = runtime.NumGoroutine()
			res.MaxFDs = max(res.MaxFDs, smp.FDs)
			res.MaxTimeWait = max(res.MaxTimeWait, smp.TimeWait)
			if el := d.Elapsed(); el >= steadyFrom && el <= steadyTo {
				rssSum += smp.RSSMiB
				inflSum += float64(d.Live().InFlight)
				n++
			}
			if *samples {
				res.Samples = append(res.Samples, smp)
			}
			if *memprof != "" && s.Index == int(*dur/time.Second)/2 {
				if err := writeHeapProfile(*memprof); err != nil {
					return err
				}
				*memprof = ""
			}
		}
	}
	t := d.Totals()
	res.Planned, res.Sent, res.Dropped, res.Refused = t.Planned, t.Sent, t.Dropped, t.Refused
	res.Outcomes = map[string]int64{}
	for o := range vocab.NumOutcomes {
		if c := t.FirstOutcomes[o]; c > 0 {
			res.Outcomes[o.String()] = c
		}
	}
	res.AchievedRate = t.AchievedRate()
	res.LagP99Ms, res.LagMaxMs = t.Lag.P99*1e3, t.Lag.Max*1e3
	if n > 0 {
		res.MeanRSSMiB, res.MeanInFlight = rssSum/float64(n), inflSum/float64(n)
		res.KiBPerInFlight = (res.MeanRSSMiB - res.BaseRSSMiB) * 1024 / res.MeanInFlight
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(res)
}

// rtSamples are read without stopping the world (runtime.ReadMemStats would).
var rtSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/heap/stacks:bytes"},
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// writeHeapProfile writes the heap profile (after a GC) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// procStatus returns a /proc/self/status field in KiB (0 if unavailable).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

// countFDs returns the process's open file descriptors.
func countFDs() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(es)
}

// countTimeWait counts TIME_WAIT TCP sockets whose remote port is port:
// the client side of connections to the target.
func countTimeWait(port int) int { return countTimeWaitOn(port, false) }

// benchMix is -mix's requests, their slot table and data set: a POST
// whose Idempotency-Key is request.id and whose body is what
// jsonencode({ n = request.seq, u = random.uuid, qty = random::int(1, 9),
// user = data.users.email }) decodes to, a GET whose query is
// data.users.name, a PUT with a fixed body; 1,000 users in order.
func benchMix(base string) ([]loadgen.Request, []vocab.Slot, []vocab.DataSet) {
	users := vocab.DataSet{Name: "users", Columns: []string{"email", "name"}}
	for i := range 1000 {
		users.Rows = append(users.Rows, []string{fmt.Sprintf("user%d@example.com", i), fmt.Sprintf("User %d", i)})
	}
	fixed := len(vocab.FixedSlots())
	slots := append(vocab.FixedSlots(),
		vocab.Slot{Value: vocab.PerDataColumn, Name: "data.users.email", Column: 0, JSON: true},
		vocab.Slot{Value: vocab.PerDataColumn, Name: "data.users.name", Column: 1},
		vocab.Slot{Value: vocab.PerRandomInt, Name: "random::int(1, 9)", Lo: 1, Hi: 9})
	email, name, qty := vocab.Marker(fixed), vocab.Marker(fixed+1), vocab.Marker(fixed+2)
	auth := http.Header{"Authorization": {"Bearer bench"}}
	reqs := []loadgen.Request{
		{Name: "quote", Weight: 6, Method: "POST", URL: base + "/v1/quote",
			Body: []byte(`{"n":` + vocab.PerRequestSeq.Marker() + `,"qty":` + qty + `,"u":"` + vocab.PerRandomUUID.Marker() + `","user":"` + email + `"}`),
			Header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer bench"},
				"Idempotency-Key": {vocab.PerRequestID.Marker()}}},
		{Name: "search", Weight: 3, URL: base + "/v1/search?q=" + name, Header: auth},
		{Name: "order", Weight: 1, Method: "PUT", URL: base + "/v1/order", Body: []byte("order"), Header: auth},
	}
	return reqs, slots, []vocab.DataSet{users}
}
