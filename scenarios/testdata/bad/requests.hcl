# Request blocks beside a url, a weight of zero, a duplicate name, a host
# outside allow_hosts, and a method beside the blocks.
scenario "requests" {}

target {
  url         = "http://127.0.0.1:8080/work"
  method      = "POST"
  allow_hosts = ["127.0.0.1"]
  request "quote" {
    weight = 0
    url    = "http://127.0.0.1:8080/v1/quote"
  }
  request "quote" {
    url = "http://prod.example.com/v1/quote"
  }
  request "search" {
    method = "GE T"
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
