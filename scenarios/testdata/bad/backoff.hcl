# An exponential backoff whose cap is below its base; a tracer timeout
# shorter than the client's (a warning).
scenario "backoff" {}

target {
  url         = "http://[::1]:8080/work"
  allow_hosts = ["::1"]
}

client {
  timeout = "2s"
  retry {
    max_retries = 2
    backoff {
      kind   = "exponential"
      base   = "2s"
      max    = "500ms"
      jitter = "equal"
    }
    token_bucket {
      capacity   = 0
      retry_cost = -5
    }
  }
  tracers {
    timeout = "1s"
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
