// Package fieldtest runs `trigger run` against a staging-like stack that
// nobody here wrote, as a new user would: the specimen behind a real
// reverse proxy (Debian's haproxy) that retries on its own per-try timeout,
// a real Prometheus server (Debian's prometheus) scraping every few
// seconds, queries with the rate windows users write, and no wait and no
// first-attempts query. Each case knows the truth (counted at the service)
// and checks the run's verdict and estimates against it.
//
// The tests of this package run every case once at a 5 s scrape interval;
// bench/staging repeats them at 5 s and 15 s and prints the table the
// README quotes.
package fieldtest
