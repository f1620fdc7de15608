# A trigger test of a staging service behind a gateway that retries, read
# from the team's Prometheus. Copy it, change the numbers to yours, and run
# `trigger plan` until it says the spike is a trigger with margin.
#
# Clients: three attempts each (R = 2) but under a retry budget β = 0.2, so
# once everything fails they bring A_client = 1.2. The gateway retries twice
# more on its own (×3). Believed A = 3.6, 1/A = 0.28; at ρ = 0.25 the service
# survives a trigger, slowly (A·ρ = 0.9: critical slowing): its recovery time
# grows with the spike's length, 35 s for each second past t0, so an 8 s
# spike comes back in about 3 min 16 s, inside the gate's 5 min, and
# observe = 8 min watches it come back and hold (plan says all this, and
# warns when observe is shorter than the recovery it predicts).

variable "baseline" {
  default     = 250
  description = "λ: first attempts per second at the staging baseline"
}

scenario "checkout-staging" {
  description  = "Checkout API in staging: fivefold spike for 8 s"
  max_duration = "15m"
}

target {
  url         = "https://checkout.staging.example.internal/api/v1/quote"
  method      = "POST"
  headers     = { "Content-Type" = "application/json", "X-Test" = "trigger" }
  body        = "{\"sku\": \"TRIGGER-TEST\", \"qty\": 1}"
  allow_hosts = ["checkout.staging.example.internal"]
}

client {
  timeout  = "2s"
  deadline = "6s"
  retry {
    max_retries = 2
    on          = ["timeout", "connect", "5xx", "503", "429"]
    budget      = 0.2
    backoff {
      kind   = "exponential"
      base   = "100ms"
      max    = "1s"
      jitter = "full"
    }
  }
  tracers {
    rate = 2
  }
}

layer "gateway" {
  max_retries = 2
  timeout     = "600ms"
}

service {
  pods     = 4
  pod_rate = 250
}

load {
  baseline = var.baseline
  warmup   = "1m"
  spike {
    multiplier = 5
    duration   = "8s"
  }
  observe = "8m"
}

prometheus {
  address         = "https://prometheus.monitoring.example.internal"
  scrape_interval = "30s" # the team's; plan counts it, the run reads the server's own
  auth {
    bearer_token_env = "PROM_TOKEN"
  }
  ingress        = "sum(rate(http_server_requests_total{service=\"checkout\"}[1m]))"
  first_attempts = "sum(rate(http_server_requests_total{service=\"checkout\",attempt=\"1\"}[1m]))"
  served         = "sum(rate(http_server_requests_completed_total{service=\"checkout\"}[1m]))"
  wait           = "max(checkout_queue_wait_seconds)"
  pods           = "sum(kube_deployment_status_replicas_ready{deployment=\"checkout\"})"
}

recovery {
  success_ratio = 0.99
  hold          = "30s"
}

on_trap {
  action  = "command"
  command = ["kubectl", "--context", "staging", "rollout", "restart", "deploy/checkout"]
  observe = "5m"
}

gate {
  max_recovery      = "5m"
  allow_trap        = false
  max_amplification = 4
}

# Brakes: the run stops its load within a second (exit 5) when one of these
# returns a series, or cannot be evaluated. Staging is shared: stop if the
# other teams' checkout SLO burns fast, or if anything fires in production.
stop_when "checkout-slo-burn" {
  query = "slo:burn_rate:ratio_1h{service=\"checkout\",env=\"staging-eu\"} > 10"
}

stop_when "production-alerts" {
  query = "ALERTS{alertstate=\"firing\",env=\"production\",severity=\"critical\"}"
}
