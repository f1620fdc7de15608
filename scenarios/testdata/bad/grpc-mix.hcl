# A mix of gRPC requests, each wrong its own way: a method misspelt, a
# streaming one, a field the message does not have, a leading slash, a
# grpc block on an http:// URL, a grpc:// URL without one, a method in
# the URL's path, HTTP settings on a call, no method; and a method in the
# target's grpc block, which only says where the types come from.
scenario "grpc-mix" {}

target {
  allow_hosts = ["127.0.0.1"]
  grpc {
    descriptor_set = "testdata/good/greeter.protoset"
    method         = "helloworld.Greeter/SayHello"
  }
  request "typo" {
    url = "grpc://127.0.0.1:9090"
    grpc { method = "helloworld.Greeter/SayHelo" }
  }
  request "stream" {
    url = "grpc://127.0.0.1:9090"
    grpc { method = "helloworld.Greeter/SayHelloStream" }
  }
  request "field" {
    url = "grpc://127.0.0.1:9090"
    grpc {
      method  = "helloworld.Greeter/SayHello"
      message = jsonencode({ nme = request.id })
    }
  }
  request "slash" {
    url = "grpc://127.0.0.1:9090"
    grpc { method = "/helloworld.Greeter/SayHello" }
  }
  request "http" {
    url = "http://127.0.0.1:8080/"
    grpc { method = "helloworld.Greeter/SayHello" }
  }
  request "nogrpc" {
    url = "grpcs://127.0.0.1:9090"
  }
  request "path" {
    url = "grpc://127.0.0.1:9090/helloworld.Greeter/SayHello"
    grpc { method = "helloworld.Greeter/SayHello" }
  }
  request "body" {
    url    = "grpc://127.0.0.1:9090"
    method = "POST"
    body   = "{}"
    grpc { method = "helloworld.Greeter/SayHello" }
  }
  request "nomethod" {
    url = "grpc://127.0.0.1:9090"
    grpc {}
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
