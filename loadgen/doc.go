// Package loadgen is the spike driver of a trigger test: it sends first
// attempts on an open-model schedule that does not slow down when the
// service does, gives each attempt the clients' real timeout, retries the way
// production clients retry, and accounts for every attempt (docs/model.md,
// "What a trigger test measures", item 2). Of this module it imports only
// vocab, the shared names and defaults (docs/design.md, "Layout").
//
// # Schedule
//
// A Schedule turns rate stages (constant or linear, first attempts per
// second) into absolute planned send times, Poisson or uniform, by inverting
// the cumulative rate; it is pure and seeded. The Driver's one dispatcher
// goroutine sleeps to each planned time (a runtime timer to 2 ms before it,
// then nanosleep, never a chain of relative sleeps) and records the dispatch
// lag, actual − planned. When it is behind it sends at once; a first attempt
// more than Config.MaxLag (default 1 s) late is dropped and counted
// (Second.Dropped, trigger_dropped_total), like k6's dropped_iterations.
//
// The schedule is kept at any rate up to MaxRate (10⁹/s), far beyond what
// one process can send: arrivals the dispatcher cannot send are never
// generated one by one. When it meets one that is more than MaxLag late,
// or more arrivals due than MaxInFlight (a backlog no catch-up could
// send), it drops the late ones, or all but the last MaxInFlight/2 (the
// other half is room for what comes due while it catches up), in one
// step (Schedule.SkipBefore counts them: exactly for uniform arrivals, by
// a Poisson draw for Poisson ones); when no slot is free it refuses every
// arrival due in one step. After such a batch it handles nothing for
// 1 ms, so its work is at most a thousand batches a second plus the
// attempts it sends, and a stage after a spike starts on time.
//
// # Attempts
//
// Every attempt goes through one shared http.RoundTripper with a deadline
// of Config.Timeout (τ_out), or less when the logical request's overall
// deadline is closer. The default is a LeanTransport: HTTP/1.1 on the
// attempt's own goroutine for http:// targets, no per-connection
// goroutines, and a tuned, shared net/http Transport (NewTransport) for
// https://; pass NewTransport for net/http everywhere. On the default's
// lean path an attempt is not an http.Request: the request's bytes are
// written once by net/http's writer and each attempt adds its own tracking
// headers, and a response head in the common form is read in the
// connection's buffer, any other by net/http's parser (parseLeanHead), so
// an attempt allocates little more than its goroutine. A gRPC target
// (Request.GRPC) is a unary call on a small pool of HTTP/2 connections
// instead, its message encoded once, its deadline sent as grpc-timeout,
// its status classified by ClassifyGRPC (grpc_path.go). Every attempt
// carries (a gRPC call as metadata):
//
//	X-Request-Id   one value per logical request (tracers: "<run>-t<n>")
//	X-Attempt      1 for the first attempt, 2, 3, … for retries, 0 for tracers
//	X-Deadline-Ms  milliseconds the client will still wait for this attempt
//
// Outcomes are classified as ok (a status in Config.OKStatus; by default
// 200–299), timeout (the client gave up), connect (refused, reset or closed
// before a response), 5xx (other than 503), 429, 503, 4xx (other than 429:
// the service answered with a client error) and other (malformed responses,
// attempts cancelled because the run was cancelled, and statuses below 400
// that are not ok: a redirect, or a 2xx the clients do not accept). Other,
// not a class of its own, so that retry_on and every reader of the outcomes
// keep their eight classes: a status the clients do not accept is neither
// a success nor an error status the service chose. Redirects are never
// followed: the driver calls its RoundTripper, not an http.Client, so a
// redirect cannot send load to a host the scenario does not allow. Bodies
// are drained (up to 1 MiB) and closed so keep-alive connections are
// reused.
//
// A tracer's latency is a queue wait (Second.TracerWait,
// trigger_tracer_wait_seconds) only when the service answered it, with any
// status below 500 but 429 (ok, other statuses the clients do not accept,
// 4xx): behind a proxy that gives up first, tracers come back as 5xx after
// the proxy's own timeout, which Second.TracerErrorLatency shows instead, as
// Second.ErrorLatency does for the other attempts answered with a status ≥ 500.
//
// # Retries
//
// Retrier implements a retry.Policy as pure decisions with the clock passed
// in, so a simulator can reuse it with a virtual clock: outcome classes,
// cap R (A = R + 1), a budget β over a sliding window (A = 1 + β), a token
// bucket like the AWS SDKs' standard mode, backoff none/constant/exponential
// with jitter none/full/equal/decorrelated, Retry-After on 429/503 (which
// wins over backoff), and an overall deadline no retry outlives.
//
// # Bounds
//
// At most Config.MaxInFlight attempts and tracers are in flight together
// (one goroutine and one connection each); a first attempt or retry due
// while the bound is reached is refused and counted (Second.Refused,
// Second.RetryRefused, trigger_refused_total), and so is a tracer
// (Second.TracerRefused, trigger_tracers_refused_total): tracers never wait
// for a slot, and hold at most half of them (Bounds.MaxTracers) so that
// probes never crowd out the load. Config.Tracers.Rate is at most
// MaxTracerRate (100/s). Each connection is a file descriptor: NewDriver
// raises the soft RLIMIT_NOFILE to the hard limit (RaiseFDLimit) and
// lowers MaxInFlight to the limit less FDReserve (128) descriptors for the
// rest of the process; Driver.Bounds says whether it did and why. Retries waiting for their
// backoff hold no goroutine: they wait in one heap of at most MaxInFlight
// entries served by one timer. Memory per second of timeline is
// one Second value and one Cohort; histograms are HDR (ten of 23 KiB: one
// per second, reset when it is sealed, and one for the run, per distribution),
// plus two a part of the run named by SplitAt (at most MaxParts: the first
// attempts' latency by the phase they were sent in, PartLatencies).
//
// # Accounting
//
// Timeline returns one Second per elapsed second; Live the second in
// progress; Totals the whole run. Events count in the second they happen.
// When Run returns normally: Planned = Sent + Dropped + Refused; the outcomes
// (first and retry) add up to Sent + Retries; Succeeded + Failed = Sent.
// Cohorts regroup attempts by the second their logical request's first
// attempt was sent in (Cohort.Attempts / Cohort.First is that second's
// amplification A_client); once Run has returned, every cohort has Open = 0
// and the cohorts sum to the totals' Sent, Sent + Retries and Succeeded. The
// same counts are exposed as trigger_* Prometheus metrics by Handler (a
// per-driver registry; also registered with Config.Registerer if set).
//
// # Timeout storms
//
// Over HTTP/1.1 an attempt that times out costs its connection: the client
// closes it, and the next attempt dials a new one. At 2,000 timeouts per
// second that is 2,000 new connections per second to one destination
// address and port, each using an ephemeral port (32768–60999 by default:
// 28,232 ports). A client-side close normally leaves the socket in TIME_WAIT
// for 60 s, holding its port: 120,000 ports a minute, so a target that
// closes silently after the client left exhausts the ports within about 15 s
// unless the kernel reuses TIME_WAIT ports (Linux's tcp_tw_reuse = 2 does,
// for loopback only). DefaultTransportOptions therefore set SO_LINGER 0 on
// every connection of either transport (TransportOptions.Linger0): closing resets the
// connection at once and leaves no TIME_WAIT, so ports in use stay at the
// number of attempts in flight (≈ rate × timeout) and file descriptors too.
// The target sees a reset instead of an orderly close of a connection whose
// client had given up. For more than ~25,000 attempts in flight to one
// loopback target, TransportOptions.SourceAddrs spreads connections over
// source addresses 127.0.1.x; where the target speaks HTTP/2,
// TransportOptions.HTTP2 abandons a timed-out attempt with a stream reset and
// needs no new connection at all. Memory per attempt in flight is set by
// goroutines: net/http's Transport holds three per waiting HTTP/1.1
// attempt, LeanTransport, the default, one. What a user sees:
// trigger_in_flight and open descriptors level off at about
// rate × timeout, the schedule is kept (trigger_dropped_total stays 0), no
// TIME_WAIT builds up, and memory grows with the attempts in flight. The
// timeout-storm benchmark (bash bench/loadgen/run.sh) measures the resident
// memory per attempt in flight of each transport, the descriptors and the
// TIME_WAIT sockets; bench/loadgen/README.md, "Timeout storms", has the
// figures.
package loadgen
