# Every check of the client block at once: all are reported in one pass.
scenario "client" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout       = "0s"
  arrivals      = "poison"
  max_in_flight = 0
  retry {
    max_retries = -1
    on          = ["timeout", "tmeout", "5xx", "bogus"]
    budget      = 1.5
    backoff {
      kind   = "exponental"
      jitter = "fulll"
    }
  }
  tracers {
    rate = 0
  }
}

service {
  capacity = 200
}

load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
