# Required blocks and attributes left out: each is reported on the block
# that needs it (or the file's start for a missing top-level block).
scenario "missing" {}

target {
  method = "POST"
}

client {
  arrivals = "uniform"
}

load {
  spike {}
}

service "api" {
  capacity = 200
}

on_trap {}
