# A gRPC target that says neither where its message types come from nor
# its method.
scenario "grpc-source" {}

target {
  url         = "grpc://127.0.0.1:9090"
  allow_hosts = ["127.0.0.1"]
  grpc {
    message = "{}"
  }
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
