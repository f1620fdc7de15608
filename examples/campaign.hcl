# A campaign against the example specimen's System A: where does one spike
# leave it failed, and how far must demand fall for it to come back?
#
#   go run ./examples/specimen -pods 2 -pod-rate 50 -addr 127.0.0.1:8080 &
#   trigger campaign --dry-run --var port=8080 examples/campaign.hcl
#   trigger campaign --yes --var port=8080 examples/campaign.hcl
#
# The numbers (docs/model.md, "Mapping the boundary"):
#   C = 100/s, two client retries    A = 3, so a trigger traps where ρ ≥ 1/3
#   ρ = 0.2, 0.3                     A·ρ = 0.6, 0.9 < 1: no spike traps
#   ρ = 0.4, Δ = 10 s, τ_out = 1 s   the smallest trapping k is
#                                    (1 + τ_out/Δ)/ρ = 2.75
#   once trapped                     it comes back only below λ_r = C/A = 33/s
#                                    (the baseline is 40/s: it stays failed)
#
# `trigger plan` exits 1 on it: its spike is meant to trap System A (the
# gate fails by design); the campaign maps where that starts.
# make bench-campaign runs it and compares the map with these numbers.

variable "port" {
  default     = 8080
  description = "loopback port of the specimen under test"
}

scenario "campaign" {
  description  = "System A at ρ = 0.2, 0.3, 0.4: the smallest trapping spike, and λ_r"
  max_duration = "5m"
}

target {
  url         = "http://127.0.0.1:${var.port}/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout  = "1s"
  arrivals = "uniform"
  retry {
    max_retries = 2
    on          = ["timeout", "5xx", "503", "connect"]
  }
}

service {
  capacity = 100
}

load {
  baseline = 40 # each cell's is the campaign's: ρ·C
  warmup   = "10s"
  spike {
    multiplier = 3 # each cell's is the size searched
    duration   = "10s"
  }
  observe = "2m"
}

prometheus {
  address         = "embedded"
  scrape          = ["http://127.0.0.1:${var.port}/metrics"]
  scrape_interval = "1s"
  ingress         = "sum(rate(specimen_ingress_total[5s]))"
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[5s]))"
  served          = "sum(rate(specimen_served_total[5s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[5s]))"
  wait            = "max(specimen_queue_wait_estimate_seconds)"
}

recovery {
  hold = "5s"
}

# How long a cell watches for the way back after a trap, and the longest
# the campaign waits for the service before the next cell.
on_trap {
  action  = "drop"
  observe = "1m"
}

campaign {
  baselines    = [0.2, 0.3, 0.4]
  search       = "multiplier"
  from         = 1.5
  to           = 10
  precision    = 0.1
  hysteresis   = true
  max_duration = "1h"
  rest         = "5s"
}

# Production brings at most a doubling for half a minute.
expected_spike {
  multiplier = 2
  duration   = "30s"
}

gate {
  min_trigger_margin = 1.2
}
