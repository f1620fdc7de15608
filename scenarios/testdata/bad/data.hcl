# Data sets misused: an unknown column, an unknown set, a column out of
# place, a missing file, a ragged file, a bad order, random::int misused.
scenario "data" {}
data "users" {
  file  = "testdata/good/users.csv"
  order = "shuffled"
}
data "gone" { file = "testdata/bad/no-such-file.csv" }
data "ragged" { file = "testdata/bad/ragged.csv" }
target {
  allow_hosts = ["127.0.0.1"]
  method      = data.users.email
  url         = "http://127.0.0.1:8080/v1/${data.users.emial}?s=${data.user.name}&g=${data.gone.x}"
  headers     = { "X-Tier" = data.users["tier"], "X-N" = random::int(9, 1) }
  body        = "${random.int}"
}
client { timeout = "1s" }
service { capacity = random::int(1, 2) }
load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
