# allow_hosts bounds the target URL, a Host header and the scrape
# targets; credentials never go in a URL, and are not repeated.
scenario "hosts" {}

target {
  url         = "http://127.0.0.1:8080/work"
  headers     = { Host = "checkout.prod.example:443" }
  allow_hosts = ["[::1]", "LOCALHOST.", "127.0.0.1", "staging:8080"]
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

prometheus {
  scrape          = ["http://10.0.0.7:9100/metrics", "http://scraper:s3cr3t@localhost:8080/metrics"]
  scrape_interval = "50ms"
  ingress         = "sum(rate(specimen_ingress_total[5s]))"
}
