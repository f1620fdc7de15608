# Values of the wrong type, and durations that are not Go durations.
scenario "types" {
  max_duration = "ten minutes"
}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = "127.0.0.1"
  headers     = ["X-Test"]
}

client {
  timeout       = 1
  max_in_flight = 2.5
  retry {
    max_retries = "two"
    retry_after = "maybe"
  }
}

service {
  capacity = "lots"
}

load {
  baseline = 50
  warmup   = "20 s"
  spike {
    multiplier = 5
    duration   = "10secs"
  }
}
