# trigger check's tests: a fault whose start command does not exist.
variable "url" {}
scenario "check-fault" {}
target {
  url         = "${var.url}/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "500ms" }
service { capacity = 100 }
load {
  baseline = 10
  warmup   = "2s"
  observe  = "5s"
}
fault "slow" {
  start    = ["trigger-check-no-such-program", "start"]
  stop     = ["true"]
  duration = "1s"
  capacity = 0.5
}
