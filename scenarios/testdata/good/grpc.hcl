# A gRPC target: grpc-go's helloworld Greeter, its types from a descriptor
# set (greeter.protoset, written by TestGreeterProtoset).
scenario "grpc" {}

target {
  url         = "grpc://127.0.0.1:9090"
  allow_hosts = ["127.0.0.1"]
  grpc {
    method         = "helloworld.Greeter/SayHello"
    descriptor_set = "greeter.protoset"
    message        = jsonencode({ name = "trigger-${request.id}", times = request.seq })
  }
  headers = { "x-team" = "checkout" }
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
