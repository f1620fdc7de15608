# Misspelt names: hcl's own "Did you mean" suggestions.
scenario "misspelt" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_host  = ["127.0.0.1"]
}

client {
  timout = "1s"
  retyr {
    max_retries = 2
  }
}

service {
  capacity = 200
}

load {
  baseline = 50
  spike = {
    multiplier = 5
    duration   = "10s"
  }
}

prometeus {
  address = "embedded"
}
