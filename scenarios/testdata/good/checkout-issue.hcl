# Issue 22's example, as written there, with the blocks a scenario needs
# around it.
variable "token" {
  default   = "t0ken"
  sensitive = true
}
scenario "checkout-issue" {}

data "users" {
  file  = "users.csv"      # a header row, then one row per user; or .jsonl
  order = "sequential"     # or "random"; the file wraps around
}
target {
  allow_hosts = ["checkout.staging.example.internal"]
  headers     = { Authorization = "Bearer ${var.token}" }
  request "quote" {
    weight  = 8
    method  = "POST"
    url     = "https://checkout.staging.example.internal/v1/quote"
    headers = { "Content-Type" = "application/json", "Idempotency-Key" = request.id }
    body    = jsonencode({ user = data.users.email, n = request.seq })
  }
  request "search" {
    weight = 2
    url    = "https://checkout.staging.example.internal/v1/search?q=${data.users.name}"
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
