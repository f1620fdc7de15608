# A campaign's baselines are utilizations below 1; its search brackets
# from a safe size up to a larger one; min_trigger_margin needs an
# expected_spike to compare with.
scenario "campaign" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
}

service {
  capacity = 100
}

load {
  baseline = 40
  spike {
    multiplier = 3
    duration   = "10s"
  }
}

gate {
  min_trigger_margin = 2
}

campaign {
  baselines = [0.2, 1.4]
  search    = "multipler"
  from      = 4
  to        = 3
  precision = 10
  trials    = 0
  trap_probability = 1
}
