# A scenario with one mistake of each kind a user makes; the CLI golden test
# pins what trigger plan prints for it.
scenario "broken" {
  description = "every kind of mistake at once"
}

target {
  url         = "http://staging.example.com:8080/work"
  allow_hosts = ["127.0.0.1", "localhost"]
}

client {
  timout = "1s"
  retry {
    max_retries = 2
    budget      = 1.5
    backoff {
      kind   = "exponential"
      base   = "50ms"
      jitter = "fuller"
    }
  }
}

service {
  capacity = -200
}

load {
  baseline = 50
  spike {
    multiplier = 1
    duration   = "10 seconds"
  }
}
