# vars: hook=ftp://hooks.example.invalid/T000/B000/s3cr3t-token
# A webhook is a secret: a diagnostic about it never shows the URL, not
# even when the URL is what is wrong.
variable "hook" {
  default = ""
}

scenario "notify" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
}

service {
  capacity = 200
}

load {
  baseline = 40
  spike {
    multiplier = 5
    duration   = "10s"
  }
}

notify {
  webhook = var.hook
  timeout = "5m"
}
