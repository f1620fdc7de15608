# gateway-budget.hcl — a tour of every block, on a service that sits behind
# a retrying gateway.
#
# The clients look well behaved: a retry budget of 20% means at most one
# retry per five first attempts, so on their own they amplify failures by
# A_client = 1 + β = 1.2. But the service sits behind a gateway that retries
# every timed-out upstream try twice more: A_gateway = R_g + 1 = 3. Layers
# multiply (docs/model.md, "Retry debt and amplification"):
#   A = 1.2 × 3 = 3.6,  ρ = 50/200 = 0.25,  A·ρ = 0.9 < 1
# so the service recovers, but slowly (critical slowing as A·ρ → 1). The
# service's patience is the gateway's 300 ms per-try timeout, not the
# clients' 1 s: a wait past 300 ms already fails every attempt. So
#   k·ρ = 1.25, t0 = patience/(k·ρ − 1) = 1.2 s,
#   T_rec = (A·k·ρ − 1)(Δ − t0)/(1 − A·ρ) + patience/(1 − ρ)
#         = 3.5 × 8.8 s / 0.1 + 0.4 s ≈ 308 s.
# A run measures A_fail = ingress / first attempts at the service; if it is
# near 3.6 rather than 1.2, the gateway is the hidden amplifier.
#
# Try it with other values without editing the file:
#   trigger plan --var baseline=60 --var multiplier=4 gateway-budget.hcl

# Variables: referenced as var.NAME anywhere below. A --var NAME=VALUE
# override is converted to the type of the default (here numbers).
variable "baseline" {
  default     = 50
  description = "λ, first attempts per second at baseline"
}

variable "multiplier" {
  default     = 5
  description = "k, the spike's demand as a multiple of baseline"
}

scenario "gateway-budget" {
  description  = "Budgeted client retries behind a retrying gateway: A = 1.2 × 3 = 3.6"
  max_duration = "10m" # hard stop for the whole run, whatever happens
}

target {
  url    = "http://127.0.0.1:8080/work"
  method = "GET"
  headers = {
    "X-Test" = "trigger" # sent with every attempt
  }
  body        = ""
  allow_hosts = ["127.0.0.1", "localhost"]
}

client {
  timeout       = "1s"      # τ_out, patience of one attempt
  arrivals      = "poisson" # or "uniform"
  max_in_flight = 20000     # bound on concurrent attempts; what it refuses is counted
  deadline      = "5s"      # overall deadline of a request across all its attempts

  retry {
    max_retries   = 3                                  # R, a cap per request
    on            = ["timeout", "connect", "5xx", "503"] # outcome classes retried
    budget        = 0.2                                # β: retries ≤ 20% of first attempts...
    budget_window = "10s"                              # ...counted over a sliding 10 s window
    retry_after   = true                               # honour Retry-After on 429 and 503

    # Backoff delays retries but does not remove any: it does not change A.
    backoff {
      kind   = "exponential" # none | constant | exponential
      base   = "50ms"
      max    = "1s"
      jitter = "full" # none | full | equal | decorrelated
    }

    # A retry quota like the AWS SDKs' standard mode. It would lower A_fail
    # (the bucket runs dry once everything fails), so it is left out here:
    # token_bucket {
    #   capacity       = 500
    #   retry_cost     = 5
    #   timeout_cost   = 10
    #   success_refund = 1
    # }
  }

  # Tracers: 2 probes per second with a long timeout and no retries. Their
  # latency is the queue wait even while every normal attempt times out.
  tracers {
    rate    = 2
    timeout = "60s"
  }
}

# A retry layer believed to sit between the clients and the service. Its
# amplification multiplies the clients'. The specimen's gateway retries a
# timed-out upstream try twice, each try with its own 300 ms timeout.
layer "gateway" {
  max_retries       = 2
  retry_probability = 1 # every failure is retried (r = 1)
  timeout           = "300ms"
}

service {
  capacity = 200 # C, requests per second (or pods = N and pod_rate = c)
  # admission_bound = "500ms"  # b: refuse at the door beyond 0.5 s of work;
  #                              # b < τ_out means no debt forms and no trap
  # max_replicas    = 8        # M, the replica ceiling
  # scalability_peak = 10      # N_max, past which more pods do not help
  #
  # The specimen runs without an autoscaler by default. With one, say how it
  # scales: the signal decides whether it can escape a trap (docs/model.md,
  # "Autoscalers, ceilings and admission").
  # autoscaler {
  #   signal    = "paired" # cpu | ingress | first_attempts | paired
  #   target    = 0.5      # u*
  #   dead_time = "30s"    # τ: from ordering a pod to its first served request
  # }
}

load {
  baseline = var.baseline
  warmup   = "20s"
  spike {
    multiplier = var.multiplier
    duration   = "10s"
  }
  observe = "7m" # T_rec ≈ 308 s: watch long enough to see it
}

prometheus {
  address         = "embedded"
  scrape          = ["http://127.0.0.1:8080/metrics"]
  scrape_interval = "1s"
  timeout         = "10s"

  ingress        = "sum(rate(specimen_ingress_total[5s]))"
  first_attempts = "sum(rate(specimen_ingress_total{kind=\"first\"}[5s]))"
  served         = "sum(rate(specimen_served_total[5s]))"
  abandoned      = "sum(rate(specimen_served_total{result=\"abandoned\"}[5s]))"
  wait           = "max(specimen_queue_wait_estimate_seconds)"
  pods           = "sum(specimen_pods_ready)"

  # For a remote Prometheus (address = "https://prometheus.example:9090"),
  # credentials come from environment variables, never from the file:
  # auth {
  #   bearer_token_env = "PROM_TOKEN"
  # }
  # tls {
  #   ca_file     = "ca.pem"
  #   server_name = "prometheus.example"
  # }
}

# When a real run counts as recovered: the first-attempt success ratio back
# above 99% and holding there for 10 s.
recovery {
  success_ratio = 0.99
  hold          = "10s"
}

# If the run judges the service trapped, cut demand to a trickle and watch
# whether it recovers then.
on_trap {
  action  = "rate"
  rate    = 10
  observe = "2m"
}

gate {
  max_recovery      = "6m"
  allow_trap        = false
  max_amplification = 4 # fail if the service suffers more than A = 4
}
