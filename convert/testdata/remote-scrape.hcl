scenario "convert" {}
target {
  url     = "http://127.0.0.1:8080/checkout"
  method  = "POST"
  body    = "{}"
  headers = { "X-Test" = "yes" }
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout       = "800ms"
  arrivals      = "uniform"
  max_in_flight = 300
  tracers {
    rate = 5
  }
  retry {
    max_retries = 2
    on          = ["timeout", "503"]
    backoff {
      kind   = "exponential"
      base   = "100ms"
      jitter = "full"
    }
  }
}
service {
  capacity = 200
}
prometheus {
  address         = "http://127.0.0.1:9090"
  scrape_interval = "30s"
  ingress         = "sum(rate(in_total[20s]))"
  served          = "sum(rate(out_total[20s]))"
  wait            = "max(wait_seconds)"
}
load {
  baseline = 150
  warmup   = "10s"
  spike {
    multiplier = 4
    duration   = "20s"
  }
  observe = "2m"
}
