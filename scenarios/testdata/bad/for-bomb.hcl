# Nested %{for} directives over a ten-element list: each level multiplies
# the work by ten (six levels took 12 s and 95 MB before evaluation was
# bounded). A for may be nested in at most two others' bodies.
variable "l" {
  default = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
}

scenario "for-bomb" {
  description = "%{for a in var.l}%{for b in var.l}%{for c in var.l}%{for d in var.l}%{for e in var.l}%{for f in var.l}${a}${b}${c}${d}${e}${f}%{endfor}%{endfor}%{endfor}%{endfor}%{endfor}%{endfor}"
}

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
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
