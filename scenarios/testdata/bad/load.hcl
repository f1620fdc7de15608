# A spike that is no spike, and negative or zero durations.
scenario "load" {
  max_duration = "1m"
}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "-1s"
}

service {
  capacity = -200
}

load {
  baseline = -5
  warmup   = "-20s"
  observe  = "0s"
  spike {
    multiplier = 1
    duration   = "0s"
  }
}
