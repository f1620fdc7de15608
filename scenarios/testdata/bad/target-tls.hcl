# A protocol misspelt, a client certificate without its key, and a tls
# block on an http:// target.
scenario "target-tls" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
  protocol    = "http2"
  tls {
    cert_file = "testdata/bad/client.pem"
  }
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
