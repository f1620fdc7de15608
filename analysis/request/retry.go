package request

// capRetry retries every failure after a fixed delay until a cap: the
// policy of the closed forms in docs/model.md (A = R + 1) and of the
// collapse law (R → ∞). Scenarios use loadgen's full policies through
// convert.SimRetry; this one serves the model's own tests and the tipping
// sweep, which need no budget, bucket or jitter.
type capRetry struct {
	maxRetries int // negative: unlimited
	delayS     float64
}

func (capRetry) FirstAttempt(float64) {}
func (capRetry) Succeeded(float64)    {}

func (c capRetry) Failed(_ float64, f RetryFailure) (bool, float64) {
	if c.maxRetries >= 0 && f.Attempt > c.maxRetries {
		return false, 0
	}
	return true, c.delayS
}

// capRetries is the retry model that retries every failed attempt, timeout
// or refusal, delayS seconds after the client learns of it, at most
// maxRetries times (R; negative means unlimited, the collapse law's R → ∞).
func capRetries(maxRetries int, delayS float64) RetryModel {
	c := capRetry{maxRetries: maxRetries, delayS: max(delayS, 0)}
	return RetryModel{
		New:        func(uint64) RetryDecider { return c },
		MaxRetries: maxRetries,
		MaxDelayS:  c.delayS,
	}
}
