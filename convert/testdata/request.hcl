scenario "request" {}
target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = "1s"
  arrivals = "uniform"
  retry {
    max_retries = 3
    on          = ["timeout"]
    budget      = 0.2
  }
}
layer "gateway" {
  max_retries = 1
}
service {
  pods                 = 4
  pod_rate             = 50
  workers              = 2
  service_time         = "lognormal"
  service_cv           = 2
  queue                = "shared"
  deadline_propagation = true
  admission_bound      = "3s"
}
load {
  baseline = 150
  warmup   = "10s"
  spike {
    multiplier = 4
    duration   = "20s"
  }
  observe = "5m"
}
