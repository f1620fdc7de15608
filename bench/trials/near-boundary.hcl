# near-boundary.hcl — a trigger test at the edge of the specimen's
# boundary, for bench/trials/run.sh: two pods of 100/s (C = 200/s) at
# ρ = 0.4 with two client retries (A·ρ = 1.2: once the wait passes the
# timeout, the service stays failed), and a spike whose size puts the
# wait's crossing of τ_out = 0.5 s at a toss: the model's smallest
# trapping multiplier is (1 + τ_out/Δ)/ρ = (1 + 0.5/6)/0.4 = 2.71.
variable "url" { default = "http://127.0.0.1:18080" }
variable "multiplier" { default = "2.65" }

scenario "near-boundary" { max_duration = "2m" }
target {
  url         = "${var.url}/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = "500ms"
  arrivals = "poisson"
  retry {
    max_retries = 2
    on          = ["timeout", "5xx", "503", "connect"]
  }
}
service {
  pods     = 2
  pod_rate = 100
}
load {
  baseline = 80
  warmup   = "3s"
  spike {
    multiplier = var.multiplier
    duration   = "6s"
  }
  observe = "40s"
}
prometheus {
  address         = "embedded"
  scrape          = ["${var.url}/metrics"]
  scrape_interval = "500ms"
  ingress         = "sum(rate(specimen_ingress_total[3s]))"
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[3s]))"
  served          = "sum(rate(specimen_served_total[3s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[3s]))"
  wait            = "max(specimen_queue_wait_estimate_seconds)"
}
recovery { hold = "3s" }
gate { allow_trap = true }
