# vars: baseline=0
# A semantic error on a value that came from a variable: the diagnostic
# shows the variable's value.
variable "baseline" {
  default = 50
}

scenario "variable-value" {}

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
  baseline = var.baseline
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
