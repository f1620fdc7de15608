# trigger check's tests: small-run.hcl with a remote Prometheus at prom
# and, when fault_start names a program, a fault that runs it.
variable "url" {}
variable "prom" {}
scenario "check" {}
target {
  url         = "${var.url}/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "500ms" }
service { capacity = 100 }
load {
  baseline = 10
  warmup   = "2s"
  spike {
    multiplier = 2
    duration   = "1s"
  }
  observe = "5s"
}
prometheus {
  address = var.prom
  served  = "sum(rate(served_total[1m]))"
}
