# An unknown on_trap action; recovery and gate values out of range.
scenario "on-trap" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
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

recovery {
  success_ratio = 0
  hold          = "-10s"
}

on_trap {
  action  = "dorp"
  rate    = -1
  observe = "0s"
}

gate {
  max_recovery      = "2m"
  max_amplification = 0.5
}
