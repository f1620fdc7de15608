# The scenario `trigger demo` runs against two specimens on loopback, one
# System A (FIFO, keeps serving work whose client has gone) and one System B
# (the same service with an admission bound of half the client timeout).
# Run it yourself against a specimen you started:
#
#   go run ./examples/specimen -pods 2 -pod-rate 100 -addr 127.0.0.1:8080 &
#   trigger run --var port=8080 examples/demo.hcl
#
# The numbers (docs/model.md):
#   C = 200/s, λ = 80/s          ρ = 0.4
#   two client retries           A = 3, 1/A = 0.33 ≤ ρ: bistable
#   k = 5 for Δ = 5 s            (k·ρ − 1)·Δ = 5 s > τ_out = 1 s: a trigger, t0 = 1 s
#   System A                     A·ρ = 1.2 ≥ 1: trapped after the spike
#   System B, b = 0.5 s < τ_out  no retry debt can form: it recovers
#
# `trigger plan` exits 1 on it: without the admission bound (System A) it
# is meant to trap (the gate fails by design).

variable "port" {
  default     = 8080
  description = "loopback port of the specimen under test"
}

variable "admission_bound" {
  default     = "0s"
  description = "b, the specimen's admission bound (0s: none); the demo gives System B 500ms"
}

scenario "demo" {
  description  = "Fivefold spike for 5 s at 40 % utilization with two client retries"
  max_duration = "3m"
}

target {
  url         = "http://127.0.0.1:${var.port}/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
  retry {
    max_retries = 2
    # 503 is System B's refusal at the door: clients retry it too,
    # honouring its Retry-After.
    on = ["timeout", "connect", "5xx", "503"]
  }
  tracers {
    rate = 2
  }
}

service {
  pods            = 2
  pod_rate        = 100
  admission_bound = var.admission_bound
}

load {
  baseline = 80
  warmup   = "10s"
  spike {
    multiplier = 5
    duration   = "5s"
  }
  observe = "1m"
}

prometheus {
  address        = "embedded"
  scrape         = ["http://127.0.0.1:${var.port}/metrics"]
  ingress        = "sum(rate(specimen_ingress_total[5s]))"
  first_attempts = "sum(rate(specimen_ingress_total{kind=\"first\"}[5s]))"
  served         = "sum(rate(specimen_served_total[5s]))"
  abandoned      = "sum(rate(specimen_served_total{result=\"abandoned\"}[5s]))"
  wait           = "max(specimen_queue_wait_estimate_seconds)"
  pods           = "max(specimen_pods_ready)"
}

recovery {
  success_ratio = 0.99
  hold          = "5s"
}

# Once trapped, cut demand to zero and time how long the debt takes to drain.
on_trap {
  action  = "drop"
  observe = "40s"
}

gate {
  max_recovery = "30s"
  allow_trap   = false
}
