# A service whose latency grows with the requests in flight, no queue:
# L = L₀ + N/C with L₀ = 1 s and C = 100/s. Clients wait 3 s and retry
# twice (A = 3); 40/s doubles for 5 s, which brings the law's mean latency
# above the floor to 1.84 s of the 2 s that times clients out: near the
# boundary, where random arrivals decide.
scenario "concurrency-law" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout  = "3s"
  arrivals = "poisson"
  retry {
    max_retries = 2
    on          = ["timeout"]
  }
}

service {
  capacity      = 100
  latency_law   = "concurrency"
  latency_floor = "1s"
}

load {
  baseline = 40
  warmup   = "20s"
  spike {
    multiplier = 2
    duration   = "5s"
  }
  observe = "2m"
}
