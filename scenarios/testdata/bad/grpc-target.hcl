# A gRPC target with both a descriptor set and reflection, a message
# whose field has the wrong type, a host outside allow_hosts, metadata
# gRPC reserves, and HTTP's ok_status and protocol.
scenario "grpc-target" {}

target {
  url         = "grpcs://10.0.0.1:9090"
  allow_hosts = ["127.0.0.1"]
  headers     = { "grpc-timeout" = "1S", "x-ok" = "yes" }
  ok_status   = [200]
  protocol    = "h2"
  grpc {
    method         = "helloworld.Greeter/SayHello"
    descriptor_set = "testdata/good/greeter.protoset"
    reflection     = true
    message        = jsonencode({ name = "n", times = "many" })
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
