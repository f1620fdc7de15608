# Only http and https targets; an empty allow_hosts refuses everything.
scenario "url-scheme" {}

target {
  url         = "ftp://127.0.0.1/work"
  allow_hosts = []
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
  address = "embeded"
  scrape  = ["127.0.0.1:8080/metrics"]
}
