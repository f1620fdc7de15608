//go:build !linux

package loadgen

import "time"

// preciseSleep sleeps for d with the runtime's timer where nanosleep is not used.
func preciseSleep(d time.Duration) { time.Sleep(d) }
