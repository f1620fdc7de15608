# A run whose target URL and header carry a sensitive token; port is a
# closed loopback port, so the warmup fails quoting the URL.
variable "token" { sensitive = true }
variable "port" {}
scenario "secret" {}
target {
  url         = "http://127.0.0.1:${var.port}/work?key=${var.token}"
  headers     = { "X-Api-Key" = var.token }
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
