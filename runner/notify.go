package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
)

// maxNotifyAnswer is the most of the webhook's answer read (Slack answers
// "ok"); the rest is not read.
const maxNotifyAnswer = 4 << 10

// errNotifyRedirect refuses the webhook's redirects: the message goes to
// the URL the scenario gave, nowhere else.
var errNotifyRedirect = errors.New("the webhook answered with a redirect, which is not followed")

// notify posts the run's outcome (report.NotifyMessage) to the scenario's
// webhook, once, after everything else of the run is done: the brakes,
// the fault's stop, the result and the reports never wait for it. The post
// takes at most n.Timeout and ends at once when hurry closes (a second
// interrupt). It returns what became of it, for the log; it never changes
// the run's outcome. The webhook's URL is a secret: the caller redacts
// the text returned.
func notify(n *convert.Notify, doc analysis.Document, dir string, written []string, hurry <-chan struct{}) string {
	body, err := report.NotifyMessage(doc, dir, written)
	if err != nil {
		return fmt.Sprintf("notify: not posted: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.Timeout)
	defer cancel()
	go func() {
		select {
		case <-hurry:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.Webhook, bytes.NewReader(body))
	if err != nil {
		return fmt.Sprintf("notify: not posted: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "trigger")
	client := &http.Client{
		Transport:     &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, TLSHandshakeTimeout: n.Timeout},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errNotifyRedirect },
	}
	defer client.CloseIdleConnections()
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Sprintf("notify: the webhook did not answer within %s; the run's outcome stands", n.Timeout)
		}
		return fmt.Sprintf("notify: the post failed: %v; the run's outcome stands", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxNotifyAnswer))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Sprintf("notify: the webhook answered %s; the run's outcome stands", resp.Status)
	}
	return fmt.Sprintf("notify: posted to the webhook (%s, %s)", resp.Status, analysis.FormatSeconds(time.Since(start).Seconds()))
}
