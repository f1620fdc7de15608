# vars: patience=s3cr3t-patience
# A sensitive variable's value is never shown: not the --var text, not
# in a diagnostic about what it was used for, not in "with var.NAME as".
variable "patience" {
  default   = "1s"
  sensitive = true
}

variable "baseline" {
  default = 0
}

scenario "sensitive" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = var.patience
}

service {
  capacity = 200
}

load {
  baseline = var.baseline
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
