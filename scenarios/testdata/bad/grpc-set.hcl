# A mix whose gRPC request's target has no grpc block to say where the
# message types come from.
scenario "grpc-set" {}

target {
  allow_hosts = ["127.0.0.1"]
  request "hello" {
    url = "grpc://127.0.0.1:9090"
    grpc { method = "helloworld.Greeter/SayHello" }
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
