# action = "command" needs a command; a remote Prometheus with scrape
# targets (a warning) and conflicting credentials.
scenario "on-trap-command" {}

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

prometheus {
  address = "http://127.0.0.1:9090"
  scrape  = ["http://127.0.0.1:8080/metrics"]
  ingress = "sum(rate(specimen_ingress_total[5s]))"
  auth {
    bearer_token_env = "PROM_TOKEN"
    username_env     = "PROM_USER"
  }
}

on_trap {
  action = "command"
  rate   = 5
}
