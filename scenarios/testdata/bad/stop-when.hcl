# stop_when: a query that does not parse, one that is no vector, an
# address with credentials, a timeout out of bounds, a duplicate and an
# unsafe name.
scenario "stop-when" {}

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

stop_when "burn-rate" {
  query   = "slo:burn_rate:ratio_1h{env=\"staging-eu\"} >"
  address = "https://stop:hunter2@prometheus.staging-eu.internal"
}

stop_when "burn-rate" {
  query   = "10 > bool 1"
  timeout = "50ms"
}

stop_when "../alerts" {
  query = "ALERTS{alertstate=\"firing\",env=\"production\"}"
}
