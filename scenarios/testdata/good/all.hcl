# Every block and attribute of the schema, each with a value that differs
# from its default, so the decode test sees each one arrive.
variable "rate" {
  default     = 40
  description = "baseline"
}

variable "hosts" {
  default = ["127.0.0.1", "localhost"]
}

variable "token" {
  default   = "s3cr3t"
  sensitive = true
}

scenario "all" {
  description  = "every attribute"
  max_duration = "15m"
}

target {
  url         = "https://localhost:8443/api?x=1"
  method      = "POST"
  headers     = { "X-Test" = "trigger", Authorization = "Bearer ${var.token}" }
  body        = "{\"k\": 1}"
  allow_hosts = var.hosts
  ok_status   = [204, "2xx", 304]
  protocol    = "h2"
  tls {
    ca_file              = "target-ca.pem"
    cert_file            = "client.pem"
    key_file             = "client-key.pem"
    server_name          = "api.staging"
    insecure_skip_verify = false
  }
}

client {
  timeout       = "750ms"
  arrivals      = "uniform"
  max_in_flight = 5000
  deadline      = "3s"
  retry {
    max_retries   = 4
    on            = ["timeout", "429", "503", "4xx", "other"]
    budget        = 0.1
    budget_window = "30s"
    retry_after   = false
    token_bucket {
      capacity       = 100
      retry_cost     = 2
      timeout_cost   = 4
      success_refund = 0.5
    }
    backoff {
      kind   = "constant"
      base   = "20ms"
      max    = "2s"
      jitter = "decorrelated"
    }
  }
  tracers {
    rate    = 0.5
    timeout = "30s"
  }
}

layer "gateway" {
  max_retries       = 2
  timeout           = "250ms"
  on                = ["timeout", "503"]
}

layer "mesh" {
  budget            = 0.25
  retry_probability = 0.5
}

service {
  pods             = 4
  pod_rate         = 25.5
  admission_bound  = "400ms"
  max_replicas     = 12
  scalability_peak = 20
  workers          = 8
  service_time     = "lognormal"
  service_cv       = 1.5
  queue            = "shared"

  deadline_propagation = true
  autoscaler {
    signal    = "paired"
    target    = 0.6
    dead_time = "45s"
  }
}

load {
  baseline = var.rate
  warmup   = "5s"
  observe  = "90s"
  spike {
    multiplier = 4.5
    duration   = "8s"
  }
}

prometheus {
  address         = "https://prom.internal:9090"
  scrape_interval = "2s"
  timeout         = "5s"
  ingress         = "i"
  first_attempts  = "f"
  served          = "s"
  abandoned       = "a"
  wait            = "w"
  pods            = "p"
  auth {
    username_env = "U"
    password_env = "P"
  }
  tls {
    ca_file              = "ca.pem"
    cert_file            = "c.pem"
    key_file             = "k.pem"
    server_name          = "prom"
    insecure_skip_verify = true
  }
}

recovery {
  success_ratio = 0.95
  hold          = "20s"
}

on_trap {
  action  = "command"
  command = ["kubectl", "rollout", "restart", "deploy/api"]
  observe = "3m"
}

gate {
  max_recovery                 = "90s"
  allow_trap                   = true
  max_amplification            = 6
  baseline                     = "out/main/result.json"
  max_recovery_regression      = "25%"
  max_amplification_regression = 0.15
  min_trigger_margin           = 2
}

campaign {
  baselines    = [0.25, 0.5]
  search       = "duration"
  from         = "2s"
  to           = "1m"
  precision    = 0.2
  hysteresis   = true
  max_duration = "3h"
  rest         = "30s"
  trials       = 50
  trap_probability = 0.05
}

expected_spike {
  multiplier = 2
  duration   = "30s"
}

notify {
  webhook = "https://hooks.example.internal/services/T0/B0/xyz"
  timeout = "3s"
}

stop_when "burn-rate" {
  query   = "slo:burn_rate:ratio_1h{env=\"staging-eu\"} > 10"
  address = "https://prom.staging-eu.internal:9090"
  timeout = "500ms"
  auth {
    bearer_token_env = "STOP_TOKEN"
  }
  tls {
    ca_file     = "stop-ca.pem"
    server_name = "prom-eu"
  }
}

stop_when "production-alerts" {
  query = "ALERTS{alertstate=\"firing\",env=\"production\"}"
}
