# The specimen's System A with random arrivals and service times, for
# bench/campaign-trials/run.sh: two pods of 100/s (C = 200/s) with
# exponential service times, Poisson arrivals, clients with a 0.5 s
# timeout and two retries (A = 3), a spike of 4 s at ρ = 0.4 (80/s). The
# fluid model's smallest trapping multiplier is (1 + 0.5/4)/0.4 = 2.81;
# with random arrivals and service a spike near it traps only sometimes.

variable "port" {
  default     = 18232
  description = "loopback port of the specimen under test"
}

scenario "campaign-trials" {
  description  = "System A, random arrivals and service: the boundary with its odds"
  max_duration = "2m"
}

target {
  url         = "http://127.0.0.1:${var.port}/work"
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
  capacity     = 200
  pods         = 2
  service_time = "exponential"
}

load {
  baseline = 80
  warmup   = "3s"
  spike {
    multiplier = 3
    duration   = "4s"
  }
  observe = "40s"
}

prometheus {
  address         = "embedded"
  scrape          = ["http://127.0.0.1:${var.port}/metrics"]
  scrape_interval = "500ms"
  ingress         = "sum(rate(specimen_ingress_total[3s]))"
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[3s]))"
  served          = "sum(rate(specimen_served_total[3s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[3s]))"
  wait            = "max(specimen_queue_wait_estimate_seconds)"
}

recovery { hold = "2s" }

on_trap {
  action  = "drop"
  observe = "30s"
}

campaign {
  baselines        = [0.4]
  from             = 2
  to               = 4
  precision        = 0.05
  rest             = "1s"
  trials           = 6
  trap_probability = 0.5
  max_duration     = "15m"
}
