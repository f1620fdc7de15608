# random.int(LO, HI) as the issue first spelt it: a syntax error with a hint.
scenario "x" {}
target {
  url = "http://127.0.0.1/"
  body = random.int(1, 5)
}
