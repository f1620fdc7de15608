# A descriptor set that is no descriptor set (this file), and a tls block
# on a plaintext grpc:// target.
scenario "grpc-garbage" {}

target {
  url         = "grpc://127.0.0.1:9090"
  allow_hosts = ["127.0.0.1"]
  tls {
    insecure_skip_verify = true
  }
  grpc {
    method         = "helloworld.Greeter/SayHello"
    descriptor_set = "testdata/bad/grpc-garbage.hcl"
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
