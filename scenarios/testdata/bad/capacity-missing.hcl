# A service block that gives no capacity at all.
scenario "capacity-missing" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
}

service {
  max_replicas = 10
}

load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
