# A missing "=" and an unclosed block: syntax errors are reported alone,
# since decoding a half-parsed file would add misleading problems.
scenario "syntax" {}

target {
  url "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}

client {
  timeout = "1s"
