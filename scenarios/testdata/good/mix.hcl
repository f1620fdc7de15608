# A target with a request mix: common headers, three requests by weight.
variable "token" {
  default   = "s3cr3t"
  sensitive = true
}

scenario "checkout-mix" {}

target {
  allow_hosts = ["127.0.0.1"]
  headers     = { Authorization = "Bearer ${var.token}", "X-Test" = "mix" }
  request "quote" {
    weight  = 8
    method  = "POST"
    url     = "http://127.0.0.1:8080/v1/quote"
    headers = { "Content-Type" = "application/json", "X-Test" = "quote" }
    body    = "{\"n\":1}"
  }
  request "search" {
    weight = 2
    url    = "http://127.0.0.1:8080/v1/search?q=shoes"
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
