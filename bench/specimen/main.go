// Command specimen-bench offers a saturated specimen 5,000 attempts/s of
// ingress on loopback and measures what overload costs it: queue length
// against its bound, the specimen's resident memory, and /metrics and
// /healthz latency (p50/p99/max) while it is overloaded (the figures:
// bench/specimen/README.md). The specimen runs
// as a child process (built by run.sh) so that its RSS is its own.
//
//	bash bench/specimen/run.sh            # defaults below, 30 s
//	go run ./bench/specimen -specimen /path/to/specimen -rate 5000 -duration 30s
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

type options struct {
	specimen   string
	addr       string
	rate       float64
	duration   time.Duration
	timeout    time.Duration
	pods       int
	podRate    float64
	maxQueue   int
	probeEvery time.Duration
	h2         bool
}

func main() {
	var o options
	flag.StringVar(&o.specimen, "specimen", "", "path of the specimen binary (go build ./examples/specimen)")
	flag.StringVar(&o.addr, "addr", "127.0.0.1:18480", "loopback address for the specimen")
	flag.Float64Var(&o.rate, "rate", 5000, "attempts/s offered (open model, no retries)")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "length of the load")
	flag.DurationVar(&o.timeout, "timeout", time.Second, "client timeout of one attempt")
	flag.IntVar(&o.pods, "pods", 4, "specimen pods")
	flag.Float64Var(&o.podRate, "pod-rate", 250, "specimen requests/s per pod (capacity = pods × pod-rate)")
	flag.IntVar(&o.maxQueue, "max-queue", 20000, "specimen hard queue bound")
	flag.DurationVar(&o.probeEvery, "probe-every", 100*time.Millisecond, "period of the /healthz and /metrics probes")
	flag.BoolVar(&o.h2, "h2", false, "drive the load over unencrypted HTTP/2 instead of HTTP/1.1")
	flag.Parse()
	if o.specimen == "" {
		fmt.Fprintln(os.Stderr, "specimen-bench: -specimen is required (see run.sh)")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "specimen-bench:", err)
		os.Exit(1)
	}
}

// probe is one timed GET.
type probe struct {
	at      time.Duration
	latency time.Duration
	err     error
}

func run(ctx context.Context, o options) error {
	ctx, cancel := context.WithTimeout(ctx, o.duration+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.specimen, "-addr", o.addr, "-pods", strconv.Itoa(o.pods),
		"-pod-rate", strconv.FormatFloat(o.podRate, 'g', -1, 64), "-max-queue", strconv.Itoa(o.maxQueue))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start specimen: %w", err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	base := "http://" + o.addr
	probeClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	if err := waitHealthy(ctx, probeClient, base); err != nil {
		return err
	}
	baseRSS, _ := readRSS(cmd.Process.Pid)
	cpu0, _ := readCPU(cmd.Process.Pid)
	load0 := loadavg()
	self0, _ := readCPU(os.Getpid())

	topts := loadgen.DefaultTransportOptions()
	topts.SourceAddrs = 32
	topts.HTTP2 = o.h2
	tr := loadgen.NewTransport(topts)
	defer tr.CloseIdleConnections()
	d, err := loadgen.NewDriver(loadgen.Config{
		Request:     loadgen.Request{Method: "GET", URL: base + "/work"},
		Stages:      []loadgen.Stage{loadgen.Constant(o.duration, o.rate)},
		Arrivals:    vocab.Poisson,
		Seed:        1,
		Timeout:     o.timeout,
		MaxInFlight: 50000,
		Transport:   tr,
	})
	if err != nil {
		return err
	}

	var (
		mu            sync.Mutex
		health, mets  []probe
		depths        []float64
		rssMax, rssAt int64
		rssSeries     []int64 // RSS at the end of every fifth of the run
		wg            sync.WaitGroup
	)
	start := time.Now()
	loadCtx, stopProbes := context.WithCancel(ctx)
	every(loadCtx, &wg, o.probeEvery, func() { // probes: /healthz then /metrics
		h := timedGet(ctx, probeClient, base+"/healthz", nil)
		var body []byte
		m := timedGet(ctx, probeClient, base+"/metrics", &body)
		h.at, m.at = time.Since(start), time.Since(start)
		mu.Lock()
		health, mets = append(health, h), append(mets, m)
		if v, ok := metricValue(body, "specimen_queue_depth"); ok {
			depths = append(depths, v)
		}
		mu.Unlock()
	})
	every(loadCtx, &wg, 250*time.Millisecond, func() { // resident memory of the specimen
		if r, err := readRSS(cmd.Process.Pid); err == nil {
			mu.Lock()
			if r > rssMax {
				rssMax, rssAt = r, int64(time.Since(start)/time.Second)
			}
			if fifth := o.duration / 5; time.Since(start) >= time.Duration(len(rssSeries)+1)*fifth {
				rssSeries = append(rssSeries, r)
			}
			mu.Unlock()
		}
	})
	runErr := d.Run(ctx)
	elapsed := time.Since(start)
	cpu1, _ := readCPU(cmd.Process.Pid)
	self1, _ := readCPU(os.Getpid())
	stopProbes()
	wg.Wait()
	if runErr != nil {
		return fmt.Errorf("load: %w", runErr)
	}
	var final []byte
	timedGet(ctx, probeClient, base+"/metrics", &final)
	report(o, d.Totals(), health, mets, depths, baseRSS, rssMax, rssAt, final)
	mib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	var series []string
	for _, r := range rssSeries {
		series = append(series, mib(r))
	}
	fmt.Printf("specimen RSS at each fifth of the run: %s MiB\n", strings.Join(series, ", "))
	fmt.Printf("CPU: specimen %.2f cores, load generator %.2f cores (of %d); load average before %s, after %s\n",
		(cpu1-cpu0).Seconds()/elapsed.Seconds(), (self1-self0).Seconds()/elapsed.Seconds(), runtime.NumCPU(), load0, loadavg())
	return nil
}

func waitHealthy(ctx context.Context, c *http.Client, base string) error {
	for range 100 {
		if p := timedGet(ctx, c, base+"/healthz", nil); p.err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("specimen did not become healthy")
}

// every calls f every period, in a goroutine counted in wg, until ctx is done.
func every(ctx context.Context, wg *sync.WaitGroup, period time.Duration, f func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			f()
		}
	}()
}

// timedGet GETs url and times it to the end of the body.
func timedGet(ctx context.Context, c *http.Client, url string, body *[]byte) probe {
	t := time.Now()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return probe{err: err}
	}
	resp, err := c.Do(req)
	if err != nil {
		return probe{latency: time.Since(t), err: err}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	if body != nil {
		*body = b
	}
	return probe{latency: time.Since(t), err: err}
}

// metricValue sums the samples of one metric family in an exposition text.
func metricValue(text []byte, name string) (float64, bool) {
	var sum float64
	found := false
	sc := bufio.NewScanner(strings.NewReader(string(text)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		if rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			sum += v
			found = true
		}
	}
	return sum, found
}

// readCPU returns the user+system CPU time of pid (Linux, 100 ticks/s).
func readCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad /proc stat")
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// loadavg returns the 1-minute load average of the machine (other jobs
// share it: read the latencies with it).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// readRSS returns VmRSS of pid in bytes (Linux).
func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}

func quantiles(ps []probe) (p50, p99, max time.Duration, slow, failed int) {
	var ls []time.Duration
	for _, p := range ps {
		if p.err != nil {
			failed++
			continue
		}
		ls = append(ls, p.latency)
		if p.latency > 100*time.Millisecond {
			slow++
		}
	}
	if len(ls) == 0 {
		return
	}
	slices.Sort(ls)
	q := func(f float64) time.Duration { return ls[min(len(ls)-1, int(f*float64(len(ls))))] }
	return q(0.50), q(0.99), ls[len(ls)-1], slow, failed
}

func report(o options, tot loadgen.Totals, health, mets []probe, depths []float64, baseRSS, rssMax, rssAt int64, final []byte) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	proto := "HTTP/1.1"
	if o.h2 {
		proto = "h2c"
	}
	fmt.Printf("specimen: %d pods × %g/s = %g/s capacity, max_queue %d, System A\n", o.pods, o.podRate, float64(o.pods)*o.podRate, o.maxQueue)
	fmt.Printf("load: %g attempts/s offered for %v (%s, timeout %v, no retries)\n", o.rate, o.duration, proto, o.timeout)
	fmt.Printf("  sent %d (achieved %.0f/s), dropped %d, refused by max in flight %d\n", tot.Sent, tot.AchievedRate(), tot.Dropped, tot.Refused)
	var outs []string
	for oc := range vocab.NumOutcomes {
		if n := tot.FirstOutcomes[oc]; n > 0 {
			outs = append(outs, fmt.Sprintf("%s %d", oc, n))
		}
	}
	fmt.Printf("  outcomes: %s\n", strings.Join(outs, ", "))
	ing, _ := metricValue(final, "specimen_ingress_total")
	ans, _ := metricValue(final, `specimen_served_total{result="answered"}`)
	ab, _ := metricValue(final, `specimen_served_total{result="abandoned"}`)
	full, _ := metricValue(final, `specimen_rejected_total{reason="queue_full"}`)
	fmt.Printf("  specimen: ingress %.0f, answered %.0f, abandoned %.0f, refused queue_full %.0f\n", ing, ans, ab, full)
	var dmax float64
	for _, d := range depths {
		dmax = max(dmax, d)
	}
	fmt.Printf("queue depth: max %.0f of bound %d (%d samples)\n", dmax, o.maxQueue, len(depths))
	fmt.Printf("specimen RSS: %s before load, max %s (at %d s)\n", mib(baseRSS), mib(rssMax), rssAt)
	for _, e := range []struct {
		name string
		ps   []probe
	}{{"/healthz", health}, {"/metrics", mets}} {
		p50, p99, mx, slow, failed := quantiles(e.ps)
		fmt.Printf("%-9s %d probes: p50 %s, p99 %s, max %s; over 100 ms: %d; failed: %d\n", e.name, len(e.ps), ms(p50), ms(p99), ms(mx), slow, failed)
		for _, p := range e.ps {
			if p.err != nil || p.latency > 100*time.Millisecond {
				fmt.Printf("          at %.1f s: %s %v\n", p.at.Seconds(), ms(p.latency), p.err)
			}
		}
	}
}
