# vars: baselin=60 multiplier=lots
# Variables: an undeclared reference, an override for an undeclared name,
# an override of the wrong type, a variable with no value at all.
variable "baseline" {
  default = 50
}

variable "multiplier" {
  default = 5
}

variable "timeout" {
  description = "no default, and no --var timeout=... given"
}

scenario "variables" {}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = var.timeout
}

service {
  capacity = var.capacity
}

load {
  baseline = var.baselne
  spike {
    multiplier = var.multiplier
    duration   = "10s"
  }
}
