# The checkout example of docs/scenarios.md: a data file of users, a mix
# of two requests, per-request values in url, headers and body.
variable "token" {
  default   = "s3cr3t"
  sensitive = true
}

scenario "checkout" {}

data "users" {
  file  = "users.csv"
  order = "sequential"
}

target {
  allow_hosts = ["127.0.0.1"]
  headers     = { Authorization = "Bearer ${var.token}" }
  request "quote" {
    weight  = 8
    method  = "POST"
    url     = "http://127.0.0.1:8080/v1/quote"
    headers = { "Content-Type" = "application/json", "Idempotency-Key" = request.id }
    body    = jsonencode({ user = data.users.email, n = request.seq, qty = random::int(1, 6) })
  }
  request "search" {
    weight = 2
    url    = "http://127.0.0.1:8080/v1/search?q=${data.users.name}"
  }
}

client { timeout = "1s" }
service { capacity = 200 }
load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
