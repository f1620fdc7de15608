# recovers.hcl behind a gateway that retries once, only on 503: while every
# try times out it adds nothing (A = 3); on timeouts it doubles A (6).

scenario "recovers" {
  description = "Fivefold spike for 10 s at 25% utilization; two client retries (A·ρ = 0.75): recovers in about 67 s"
}

# What we hit. allow_hosts is a guard: a run refuses any URL whose host is
# not listed, so a typo cannot send a destructive spike to production.
target {
  url         = "http://127.0.0.1:8080/work"
  method      = "GET"
  allow_hosts = ["127.0.0.1", "localhost"]
}

# The clients we impersonate. Their timeout τ_out is what turns a slow
# queue into failures: an attempt that waits longer than 1 s is abandoned,
# but the service still serves it (retry debt).
client {
  timeout  = "1s"
  arrivals = "poisson" # open model: first attempts keep arriving whatever the service does

  retry {
    max_retries = 2           # R = 2: up to 3 attempts per request, so A = 3
    on          = ["timeout"] # only timeouts are retried here
  }
}

# What we believe about the service: it finishes 200 requests per second.
service {
  capacity = 200
}

# Demand: 20 s at baseline, 10 s at five times baseline, then baseline again
# for 3 minutes while we watch whether the service comes back.
load {
  baseline = 50 # λ, first attempts per second
  warmup   = "20s"
  spike {
    multiplier = 5     # k
    duration   = "10s" # Δ
  }
  observe = "3m"
}

# Where the run reads the service's own view of the test. "embedded" starts
# an in-process Prometheus that scrapes the specimen's /metrics.
prometheus {
  address = "embedded"
  scrape  = ["http://127.0.0.1:8080/metrics"]

  # Attempts per second arriving at the service: with first_attempts it
  # gives the amplification the service really suffers, A_fail.
  ingress        = "sum(rate(specimen_ingress_total[5s]))"
  first_attempts = "sum(rate(specimen_ingress_total{kind=\"first\"}[5s]))"
  served         = "sum(rate(specimen_served_total[5s]))"
  # Work served for clients that had already given up: the retry debt.
  abandoned = "sum(rate(specimen_served_total{result=\"abandoned\"}[5s]))"
  # The queue wait a new arrival meets, w(t) = backlog / capacity: the
  # signal the run judges the trend on (falling, or trapped).
  wait = "max(specimen_queue_wait_estimate_seconds)"
}

# The release gate: fail if recovery takes longer than 2 minutes or the
# service is trapped.
gate {
  max_recovery = "2m"
  allow_trap   = false
}

layer "gateway" {
  max_retries = 1
  on          = ["503"]
}
