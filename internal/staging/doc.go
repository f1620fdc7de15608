// Package staging is a staging-like stack made of real components nobody
// here wrote, for end-to-end tests and benchmarks: haproxy, Prometheus and
// uWSGI as child processes, and the specimen service in this process, all
// on loopback ports. It does not import "testing", so a benchmark program can
// use it too.
//
// Every Start function takes a context first and returns a value with a
// Stop method that ends what it started and waits for it; the end of the
// context ends it too (Stop must still be called, to wait and clean up).
// Tests wrap them with t.Cleanup:
//
//	path, skip, err := staging.LookBinary("haproxy", staging.RequireHAProxyEnv)
//	// err → t.Fatal (CI requires the program), skip → t.Skip
//	up, err := specimen.StartLoopback(ctx, specimen.Config{Pods: 2, PodRate: 100})
//	h, err := staging.StartHAProxy(ctx, staging.HAProxyConfig{Binary: path,
//		Upstream: up.Addr, TryTimeout: 300 * time.Millisecond, Retries: 2})
//	t.Cleanup(func() { _ = h.Stop() })
//	// drive h.URL+"/work"; the truth is up.Server.Stats(), sampled by a Tally
//
// Child processes log to a file in their directory, quoted in errors and
// by Log; they get SIGTERM, then SIGKILL after a grace period, and on
// Linux SIGKILL if this process dies first.
//
// # haproxy 2.6 as a retrying layer
//
// Read in the 2.6 configuration manual and source, and measured here with
// Debian's 2.6.12 (TestHAProxyTries, TestHAProxyClientGone):
//
//   - "retries" N allows N tries after the first: with "retry-on" beyond
//     "conn-failure" (an L7 retry) each retried failure counts one, so the
//     upstream sees at most N+1 requests per client request. After the
//     last try's "timeout server" the client gets 504 (log state sH--).
//   - L7 retries need a copy of the whole request: haproxy 2.6 keeps one
//     only if the request was complete when first sent and fits a buffer
//     (tune.bufsize, 16 KiB). Bodiless GETs always qualify; the generated
//     configuration sets "option http-buffer-request" so requests with a
//     body do too.
//   - Without "option redispatch" (not set) a retry goes to the same
//     server, the only one here. L7 retries follow each other at once
//     (tries 300 ms apart with a 300 ms try timeout); a connection failure
//     is retried after min("timeout connect", 1 s).
//   - A try that times out is abandoned: haproxy closes that upstream
//     connection, so the upstream sees its client gone.
//   - Every try carries the client's headers unchanged: a header such as
//     X-Attempt: first-1 arrives identical on all three tries, so the
//     upstream cannot tell haproxy's retries from first tries by headers.
//   - When the client leaves (its own timeout), haproxy by default keeps
//     going: with a client timeout of 1 s, a try timeout of 400 ms and 4
//     retries, the upstream sees all 5 requests, the last starting 0.6 s
//     after the client left (with 2 retries: all 3, the last starting
//     before it left). With "option abortonclose" (AbortOnClose) the try in
//     flight is aborted when the client closes and no other is made: 3
//     requests with 2 or 4 retries, the third cut at 1 s (log state CH--).
//     So a layer whose tries add up past its client's timeout still makes
//     all of them unless it aborts on close. haproxy's own "timeout
//     client" does not bound the tries either: it does not run while
//     haproxy waits for the server.
//   - haproxy raises its descriptor limit to 2·maxconn + 17 and will not
//     start past the hard limit; see DefaultMaxConn.
//
// # uWSGI as an application server
//
// StartUWSGI runs Debian's uwsgi 2.0 with its python3 plugin serving
// uwsgi_app.py: one worker process of one thread (--processes 1
// --threads 1) behind a master (for the stats server), so requests wait
// in the kernel's accept backlog (--listen, capped by somaxconn) in
// arrival order and a request whose client left is still read and
// served. --lazy-apps loads the app in the worker, where its
// prometheus_client counters and their exporter thread must live;
// --die-on-term makes SIGTERM end uWSGI (2.0 reloads on it otherwise).
// The counters count as applications usually do, when the worker starts
// and ends a request: they never see the backlog. The truth of what
// arrived (Stats.Arrivals) is the requests handled plus the backlog,
// read from /proc/net/tcp (uWSGI's own listen_queue is refreshed once a
// second).
//
// haproxy in front of uWSGI: uWSGI's http-socket closes its connection
// after each answer, and haproxy's reuse of an idle server connection then
// races that close and now and then loses a request (502, log state SH--)
// that only a retry would hide; ServerClose ("option http-server-close")
// avoids it. A client that keeps its connection alive skips haproxy's
// accept backlog for its next requests: CloseEach ("option httpclose")
// makes every request queue there. haproxy accepts a queued connection
// whose client already left and forwards its request (measured: five
// requests of clients gone after 0.5 s behind "maxconn 1" all reached a
// 1 s server).
//
// # Python's ThreadingHTTPServer
//
// StartPyServer runs pyserver.py with SystemPython (Debian's, which has
// python3-prometheus-client): a thread per connection, each request a
// sleep then work that holds the GIL in 5 ms quanta, so the threads share
// the GIL (processor sharing) and the accept loop waits for it too:
// saturated, the server's accept backlog fills and overflows, which
// PyCounts.Arrivals counts (started handlers plus that backlog).
//
// # A gRPC server
//
// Package grpcgreeter, beside this one, runs grpc-go's own helloworld
// Greeter in this process with a FIFO queue and go-grpc-middleware's
// Prometheus metrics: the gRPC counterpart of the servers above.
package staging
