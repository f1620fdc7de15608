package scenarios

import (
	"math"
	"net/url"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Notify is where a run posts its outcome when it ends (block "notify"):
// a Slack-compatible incoming webhook.
type Notify struct {
	// Webhook is the URL posted to (http or https). It is a secret
	// whatever variable it came from: it is redacted, as a sensitive
	// variable's value is, from logs, errors, reports and the plan.
	Webhook string
	// Timeout bounds the whole post, from dialling to the answer's end;
	// default DefaultNotifyTimeout, at most MaxNotifyTimeout.
	Timeout time.Duration
}

// Bounds of notify.timeout: a webhook that hangs delays the run's exit by
// at most this.
const (
	DefaultNotifyTimeout = 10 * time.Second
	MaxNotifyTimeout     = time.Minute
)

// notifySchema is the notify block's: attribute names are the snake_case
// of Notify's fields.
var notifySchema = &hcl.BodySchema{Attributes: attrs("webhook", "timeout")}

// decodeNotify decodes the notify block; its webhook becomes a secret.
func (d *decoder) decodeNotify(blk *hcl.Block) *Notify {
	b := d.open("notify", "notify", blk.Body, blk.DefRange, schemaOf("notify"))
	if sb, ok := blk.Body.(*hclsyntax.Body); ok {
		d.notifyBody = sb.SrcRange
	}
	n := &Notify{Webhook: b.str("webhook", ""), Timeout: b.duration("timeout", DefaultNotifyTimeout)}
	b.require("webhook", `the URL of a Slack-compatible incoming webhook, e.g. webhook = var.hook.`)
	if n.Webhook != "" {
		d.addSecret(cty.StringVal(n.Webhook), "")
		d.webhook = n.Webhook
		// Hidden wherever the file's lines are shown: in the notify block, in
		// a variable's default, anywhere.
		d.masks = append(d.masks, mask{rng: hcl.Range{Filename: blk.DefRange.Filename, End: hcl.Pos{Byte: math.MaxInt}}, text: n.Webhook})
		// A webhook built from variables (a host and a path) puts its
		// secret in them: they are secrets too (Scenario.Variables reads
		// SensitiveValue for each).
		if a := b.content.Attributes["webhook"]; a != nil {
			for _, tr := range a.Expr.Variables() {
				if tr.RootName() != "var" || len(tr) < 2 {
					continue
				}
				if at, ok := tr[1].(hcl.TraverseAttr); ok {
					d.webhookVars = append(d.webhookVars, at.Name)
				}
			}
		}
	}
	return n
}

// notify checks the notify block: an http(s) URL with a host, and a
// timeout within its bounds. No message quotes the URL.
func (v *validator) notify() {
	n := v.s.Notify
	if n == nil || !v.present("notify") {
		return
	}
	if v.d.src.has("notify.webhook") && v.d.src.ok("notify.webhook") {
		if u, err := url.Parse(n.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// Built by hand, without the expression: hcl would print the
			// variables it came from, and their values, the URL among them.
			v.d.diags = append(v.d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid webhook URL",
				Detail:   "webhook is the http:// or https:// URL of an incoming webhook (a Slack-compatible one: it is posted {\"text\": ..., \"blocks\": [...]}). The URL is a secret, so it is not repeated here.",
				Subject:  v.d.src.at("notify.webhook"),
			})
		}
	}
	v.positiveDur(n.Timeout, "notify.timeout", "timeout", "how long the post may take")
	v.errorf(n.Timeout > MaxNotifyTimeout, "notify.timeout", "Value out of range",
		"timeout bounds the webhook's post, which delays the run's exit; it may be at most %s. Got %s.", MaxNotifyTimeout, n.Timeout)
}
