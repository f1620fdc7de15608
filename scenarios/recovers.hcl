# recovers.hcl — a service that falls over during a spike and comes back.
#
# Run it against the example specimen (go run ./examples/specimen):
#   trigger plan recovers.hcl        # validate, size the spike, predict; sends nothing
#   trigger run  recovers.hcl        # the destructive test
#
# The math (docs/model.md):
#   ρ = λ/C = 50/200 = 0.25               utilization at baseline
#   A = R + 1 = 3                          each failing request costs 3 attempts
#   A·ρ = 0.75 < 1                         once the spike is over, the debt drains
#   k·ρ = 5 × 0.25 = 1.25 > 1              the spike overloads the service, and
#   (k·ρ − 1)·Δ = 0.25 × 10 s = 2.5 s > τ_out = 1 s   it pushes the wait past the
#                                          timeout: this spike is a trigger.
#   t0 = τ_out/(k·ρ − 1) = 4 s             the wait crosses the timeout 4 s in.
#   T_rec = (A·k·ρ − 1)(Δ − t0)/(1 − A·ρ) + τ_out/(1 − ρ)
#         = 2.75 × 6 s / 0.25 + 1 s / 0.75 ≈ 67 s after the spike ends.
# The gate allows 2 minutes, so the expected verdict is "recovered".

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
