# A per-request value outside the target, and one misspelt.
scenario "pr" { description = request.id }
target {
  allow_hosts = ["127.0.0.1"]
  request "quote" {
    method  = "POST"
    url     = "http://127.0.0.1:8080/v1/quote/${request.seq}"
    headers = { "Idempotency-Key" = request.id }
    body    = "{\"n\": ${request.seq}, \"u\": \"${random.uid}\"}"
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
