# trapped.hcl — the same clients and spike as recovers.hcl, at a higher
# baseline: the service never comes back on its own (a metastable failure).
#
# The math (docs/model.md, "The trap"):
#   ρ = λ/C = 80/200 = 0.4
#   A = R + 1 = 3, so A·ρ = 1.2 ≥ 1: once every attempt fails, work arrives
#   at A·λ = 240/s and leaves at C = 200/s. The wait grows by A·ρ − 1 = 0.2 s
#   every second, every attempt keeps timing out: trapped.
#   k·ρ = 2 > 1 and (k·ρ − 1)·Δ = 10 s > τ_out = 1 s: the spike is a trigger
#   (the wait crosses the timeout t0 = τ_out/(k·ρ − 1) = 1 s after it starts).
# Before the spike the service is perfectly healthy at 40% utilization: a
# load test that never pushes the wait past the timeout cannot see this.
# `trigger plan` exits 1 on it: it is meant to trap (the gate fails by design).

scenario "trapped" {
  description = "Fivefold spike for 10 s at 40% utilization; two client retries (A·ρ = 1.2): trapped"
}

target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1", "localhost"]
}

client {
  timeout = "1s"
  retry {
    max_retries = 2 # A = 3
    on          = ["timeout"]
  }
}

service {
  capacity = 200
}

load {
  baseline = 80 # ρ = 0.4
  warmup   = "20s"
  spike {
    multiplier = 5
    duration   = "10s"
  }
  observe = "3m"
}

prometheus {
  address        = "embedded"
  scrape         = ["http://127.0.0.1:8080/metrics"]
  ingress        = "sum(rate(specimen_ingress_total[5s]))"
  first_attempts = "sum(rate(specimen_ingress_total{kind=\"first\"}[5s]))"
  served         = "sum(rate(specimen_served_total[5s]))"
  abandoned      = "sum(rate(specimen_served_total{result=\"abandoned\"}[5s]))"
  # The queue wait a new arrival meets, w(t) = backlog / capacity: the
  # signal the run judges the trend on (falling, or trapped).
  wait           = "max(specimen_queue_wait_estimate_seconds)"
}

# Once the run judges the service trapped, it stops waiting for a recovery
# that will not come and takes an action: "drop" cuts demand to zero, which
# lets the debt drain, and watches for observe to confirm the service is
# healthy again. Other actions: "rate" (demand to rate first attempts/s) and
# "command" (run a command, e.g. a restart, and keep baseline demand).
on_trap {
  action  = "drop"
  observe = "1m"
}

# A trapped service fails the gate: this is the scenario a release must not pass.
gate {
  allow_trap = false
}
