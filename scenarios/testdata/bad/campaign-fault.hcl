# A fault scenario is mapped by the capacity it takes away, not by a spike.
scenario "campaign-fault" {}

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

fault "slow-pods" {
  start    = ["./set-capacity", "0.25"]
  stop     = ["./set-capacity", "1"]
  duration = "5s"
  capacity = 0.25
}

load {
  baseline = 80
}

campaign {
  baselines = [0.4]
  from      = 1.5
  to        = 4
}
