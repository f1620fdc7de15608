# The scenario `trigger demo --grpc` runs: examples/demo.hcl over gRPC.
# The specimens serve the same queue model as specimen.Work/Do on a second
# listener (-grpc-addr); the message types come from their reflection
# service, the metrics from their HTTP port as before. Run it yourself
# against a specimen you started:
#
#   go run ./examples/specimen -pods 2 -pod-rate 100 -addr 127.0.0.1:8080 -grpc-addr 127.0.0.1:9090 &
#   trigger run --var port=8080 --var grpc_port=9090 examples/demo-grpc.hcl
#
# The numbers are demo.hcl's: System A (no bound) stays trapped, System B
# (admission_bound = "500ms", its refusals UNAVAILABLE with a pushback)
# comes back.
#
# `trigger plan` exits 1 on it: without the admission bound (System A) it
# is meant to trap (the gate fails by design).

variable "port" {
  default     = 8080
  description = "loopback port of the specimen under test"
}

variable "grpc_port" {
  default     = 9090
  description = "loopback port of the specimen's gRPC listener"
}

variable "admission_bound" {
  default     = "0s"
  description = "b, the specimen's admission bound (0s: none); the demo gives System B 500ms"
}

scenario "demo-grpc" {
  description  = "Fivefold spike for 5 s at 40 % utilization with two client retries, over gRPC"
  max_duration = "3m"
}

target {
  url         = "grpc://127.0.0.1:${var.grpc_port}"
  allow_hosts = ["127.0.0.1"]
  grpc {
    method     = "specimen.Work/Do"
    reflection = true
    message    = jsonencode({ id = "${request.id}" })
  }
}

client {
  timeout = "1s"
  retry {
    max_retries = 2
    # UNAVAILABLE is System B's refusal at the door: clients retry it
    # too, honouring its grpc-retry-pushback-ms.
    on = ["deadline_exceeded", "unavailable", "internal"]
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
