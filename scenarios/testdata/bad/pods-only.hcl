# pods without pod_rate; a rate of zero; an autoscaler missing its settings.
scenario "pods-only" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
}

service {
  pods = 4
  autoscaler {
    signal = "cpu"
  }
}

load {
  baseline = 0
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
