# no-trigger.hcl — a spike that cannot trigger anything, whatever its length.
#
# The math (docs/model.md, "The trap", trigger size):
#   ρ = λ/C = 50/200 = 0.25, k = 3, so k·ρ = 0.75 ≤ 1.
#   Even at three times baseline the service has spare capacity: the queue
#   never grows, the wait never reaches the timeout, and no spike length can
#   push it there. The verdict is "no-trigger": the test proved nothing, and
#   it is reported as inconclusive, never as a pass. `trigger plan` says so
#   before sending a single request; make the spike bigger (k > 1/ρ = 4) to
#   test anything.
# `trigger plan` exits 3 on it (inconclusive), as a run would.

scenario "no-trigger" {
  description = "Threefold spike at 25% utilization: k·ρ = 0.75, no spike length can trigger"
}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1", "localhost"]
}

client {
  timeout = "1s"
  retry {
    max_retries = 2
    on          = ["timeout"]
  }
}

service {
  capacity = 200
}

load {
  baseline = 50
  spike {
    multiplier = 3 # k·ρ = 0.75 ≤ 1
    duration   = "10s"
  }
  # warmup (20s) and observe (3m) keep their defaults.
}

prometheus {
  address        = "embedded"
  scrape         = ["http://127.0.0.1:8080/metrics"]
  ingress        = "sum(rate(specimen_ingress_total[5s]))"
  first_attempts = "sum(rate(specimen_ingress_total{kind=\"first\"}[5s]))"
  served         = "sum(rate(specimen_served_total[5s]))"
  abandoned      = "sum(rate(specimen_served_total{result=\"abandoned\"}[5s]))"
  # The queue wait a new arrival meets, w(t) = backlog / capacity: the
  # signal the run judges the trend on (falling, or trapped).
  wait           = "max(specimen_queue_wait_estimate_seconds)"
}

gate {
  max_recovery = "2m"
}
