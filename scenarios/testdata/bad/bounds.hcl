# Values no real test could mean; past them, the model's arithmetic
# overflows (multiplier = 1e300 planned a recovery after
# −2562047788015215 h).
scenario "bounds" {
  max_duration = "400h"
}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout       = "1s"
  max_in_flight = 5000000
  tracers {
    rate = 1000
  }
}

service {
  capacity = 1e9
}

load {
  baseline = 1e7
  spike {
    multiplier = 1e300
    duration   = "10s"
  }
}
