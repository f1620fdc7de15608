package fleet

import "testing"

func TestAgentProcsShareTheCores(t *testing.T) {
	for _, tc := range []struct{ cpus, n, want int }{
		{2, 1, 2}, {2, 2, 1}, {2, 3, 1}, {16, 4, 4}, {16, 3, 5}, {1, 8, 1}, {8, 0, 8},
	} {
		if got := agentProcs(tc.cpus, tc.n); got != tc.want {
			t.Errorf("agentProcs(%d cores, %d agents) = %d, want %d", tc.cpus, tc.n, got, tc.want)
		}
	}
}
