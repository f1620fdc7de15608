# Example specimen config: go run ./examples/specimen -config examples/specimen/specimen.hcl
# Every attribute is optional; a flag given on the command line wins over the file.
# This one is System A behind a hidden gateway (client R = 2 → A = 9 at the pods).

pods         = 1          # N, pods ready at start
pod_rate     = 200        # c, requests/s of one pod (capacity by waiting)
service_time = "deterministic"   # or "exponential" (mean 1/c)
queue        = "per_pod"  # or "shared" (one queue for every pod)
balancer     = "round_robin"     # or "least_loaded" (per_pod only)
max_queue    = 100000     # hard maximum of waiting requests in the service
seed         = 1

defences {
  admission_bound      = "0s"    # b; e.g. "500ms" refuses at the door with 503 + Retry-After
  retry_after          = "1s"
  deadline_propagation = false   # drop requests whose X-Deadline-Ms has passed
  cancel_on_disconnect = false   # System A: abandoned work is served anyway
  discipline           = "fifo"  # "lifo" | "adaptive_lifo"
  codel                = false
  codel_target         = "5ms"
  codel_interval       = "100ms"
  limit                = 0       # active slots; 0 = off
  limit_queue          = 0
  limit_status         = 503     # or 429
}

# grpc {                  # serve specimen.Work/Do over gRPC (h2c) too: the same queue model
#   addr             = "127.0.0.1:9090"
#   honour_deadlines = false   # drop calls whose grpc-timeout has passed before serving them
# }

gateway {                 # the block turns it on (enabled = false to keep it off)
  retries               = 2
  try_timeout           = "300ms"
  retry_on_5xx          = false
  cancel_on_client_gone = false  # a gateway that does not notice its client leaving
}

autoscaler {
  enabled                 = false
  signal                  = "ingress"  # cpu | ingress | first_attempts | paired
  target                  = 0.5
  sync_period             = "1s"
  metric_window           = "5s"
  tolerance               = 0.1
  scale_up_factor         = 2
  dead_time               = "5s"
  downscale_stabilization = "30s"
  min_replicas            = 1
  max_replicas            = 10
}
