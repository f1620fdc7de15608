# A fault misused: with a spike, no stop, an empty start, a capacity that
# is no fraction, a duration of zero.
scenario "fault" {}
target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
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
fault "half" {
  start    = []
  duration = "0s"
  capacity = 1.5
}
