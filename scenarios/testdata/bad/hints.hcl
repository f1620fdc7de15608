# Common mistakes no name is a few edits from, and what each diagnostic
# says to write instead (issue 35).
scenario "hints" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
  protocol    = "http2"
}

client {
  timeout     = "2S"
  max_retries = 2
  retry {
    max = 3
    on  = ["timeout", "502", "503"]
  }
}

layer "gateway" {
  max_retries = "max"
}

service {
  capacity = 200
}

load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10 secs"
  }
}

prometheus {
  address      = "https://prometheus.staging.internal"
  ingress      = "sum(rate(haproxy_backend_connection_attempts_total[20s]))"
  bearer_token = "not-a-real-token"
}
