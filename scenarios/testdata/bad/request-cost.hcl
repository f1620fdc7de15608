# Request costs misused: one request without, one of zero, and the
# capacity given twice.
scenario "costs" {}
target {
  allow_hosts = ["127.0.0.1"]
  request "quote" {
    url  = "http://127.0.0.1:8080/v1/quote"
    cost = "15ms"
  }
  request "search" { url = "http://127.0.0.1:8080/v1/search" }
  request "order" {
    url  = "http://127.0.0.1:8080/v1/order"
    cost = "0s"
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
