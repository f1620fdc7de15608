# The second row of `trigger demo`: System A again, triggered by a
# capacity drop instead of a spike. Its fault slows the specimen's pods to
# a quarter of their rate for 5 s through the specimen's /admin/capacity
# (`trigger demo set-capacity`), and always puts them back. Run it yourself
# against a specimen you started:
#
#   go run ./examples/specimen -pods 2 -pod-rate 100 -addr 127.0.0.1:8080 &
#   trigger run --allow-commands --var port=8080 examples/demo-fault.hcl
#
# The numbers (docs/model.md, "A capacity trigger"):
#   C = 200/s, λ = 80/s          ρ = 0.4
#   C′ = 0.25·C = 50/s for 5 s   (λ/C′ − 1)·Δ = 3 s > τ_out = 1 s: a trigger, t0 = 1.7 s
#   two client retries           A = 3, A·ρ = 1.2 ≥ 1: trapped once the capacity is back,
#                                with 3.4 s of wait left (above τ_out)
#
# `trigger plan` exits 1 on it: it is meant to trap System A (the gate
# fails by design).

variable "port" {
  default     = 8080
  description = "loopback port of the specimen under test"
}

variable "trigger" {
  default     = "trigger"
  description = "the trigger binary that runs the fault's commands (trigger demo set-capacity)"
}

scenario "demo-fault" {
  description  = "Capacity to a quarter for 5 s at 40 % utilization with two client retries"
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
  pods     = 2
  pod_rate = 100
}

fault "slow-pods" {
  start    = [var.trigger, "demo", "set-capacity", "--addr", "127.0.0.1:${var.port}", "--factor", "0.25"]
  stop     = [var.trigger, "demo", "set-capacity", "--addr", "127.0.0.1:${var.port}", "--factor", "1"]
  duration = "5s"
  capacity = 0.25
  timeout  = "10s"
}

load {
  baseline = 80
  warmup   = "10s"
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
  observe = "20s"
}

gate {
  max_recovery = "30s"
  allow_trap   = false
}
