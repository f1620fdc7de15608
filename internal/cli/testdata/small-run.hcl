# A small run against url with no Prometheus, bounded by its own limits
# (the command-line tests of run).
variable "url" {}
scenario "cli" {}
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
