# Capacity that disagrees with pods × pod_rate; an autoscaler, layers and
# the request model's attributes with values out of range.
scenario "service" {}

target {
  url         = "http://localhost:8080/work"
  allow_hosts = ["localhost"]
}

client {
  timeout = "1s"
}

layer "gateway" {
  max_retries       = -2
  retry_probability = 0
}

layer "gateway" {
  budget  = 1.2
  timeout = "-1s"
}

service {
  capacity        = 150
  pods            = 4
  pod_rate        = 50
  max_replicas    = 2
  admission_bound = "-500ms"
  workers         = 0
  service_time    = "exponentail"
  service_cv      = -1
  queue           = "lifo"
  autoscaler {
    signal    = "first_attempt"
    target    = 1.5
    dead_time = "30s"
  }
}

load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
