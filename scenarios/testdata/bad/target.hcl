# The target's host must be in allow_hosts; header names must be tokens.
scenario "target" {}

target {
  url         = "http://staging.example.com:8080/work"
  method      = "GET /"
  headers     = { "X Test" = "trigger" }
  allow_hosts = ["127.0.0.1", "localhost"]
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
