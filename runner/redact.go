package runner

import (
	"encoding/base64"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
)

// redactor replaces the values of the scenario's sensitive variables by
// convert.SensitiveValue in text bound for a log, an error or a report.
type redactor struct {
	r       *strings.Replacer
	secrets []string // what r replaces, longest first
}

func newRedactor(secrets []string) redactor {
	// The longest first: a secret that holds another is replaced whole.
	secrets = slices.Clone(secrets)
	slices.SortStableFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	var pairs, kept []string
	for _, s := range secrets {
		if s != "" {
			pairs, kept = append(pairs, s, convert.SensitiveValue), append(kept, s)
		}
	}
	if len(pairs) == 0 {
		return redactor{}
	}
	return redactor{strings.NewReplacer(pairs...), kept}
}

// secretNames are the names in env whose values hold a text x redacts,
// sorted; nil for none.
func (x redactor) secretNames(env map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if x.String(env[k]) != env[k] {
			out = append(out, k)
		}
	}
	return out
}

func (x redactor) String(s string) string {
	if x.r == nil {
		return s
	}
	return x.r.Replace(s)
}

// logf wraps a log function so that what it prints is redacted.
func (x redactor) logf(logf func(string, ...any)) func(string, ...any) {
	if logf == nil || x.r == nil {
		return logf
	}
	return func(format string, args ...any) { logf("%s", x.String(fmt.Sprintf(format, args...))) }
}

// redactedError is an error whose text is redacted; errors.Is and As still
// see the original.
type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Err redacts err's text, keeping its kind for the command line.
func (x redactor) Err(err error) error {
	if err == nil || x.r == nil {
		return err
	}
	msg := x.String(err.Error())
	if msg == err.Error() {
		return err
	}
	if re, ok := err.(*Error); ok {
		return &Error{Kind: re.Kind, Err: &redactedError{re.Err, msg}}
	}
	return &redactedError{err, msg}
}

// Doc redacts every string in the result document, wherever it sits
// (reasons, findings, the scenario's echo), before it is written or
// rendered.
func (x redactor) Doc(doc *analysis.Document) {
	if x.r == nil {
		return
	}
	x.walk(reflect.ValueOf(doc).Elem())
}

func (x redactor) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(x.String(v.String()))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			x.walk(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			x.walk(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			x.walk(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			x.walk(e)
			v.SetMapIndex(k, e)
		}
	}
}

// credentialTexts are the credentials the run reads from the environment
// for its Prometheus and stop conditions (auth blocks), in every form
// they take on the wire: the token, the password, and user:password in
// base64 as a Basic Authorization header carries it. They are redacted as
// sensitive values are: a server that echoes the Authorization header in
// an error used to put it in the log.
func credentialTexts(spec convert.Run, getenv func(string) string) []string {
	var out []string
	add := func(a *convert.Auth) {
		if a == nil {
			return
		}
		if tok := getenv(a.BearerTokenEnv); a.BearerTokenEnv != "" && tok != "" {
			out = append(out, tok)
		}
		if a.PasswordEnv == "" {
			return
		}
		user, pass := getenv(a.UsernameEnv), getenv(a.PasswordEnv)
		if pass == "" {
			return
		}
		pair := user + ":" + pass
		out = append(out, pass, base64.StdEncoding.EncodeToString([]byte(pair)), base64.URLEncoding.EncodeToString([]byte(pair)))
	}
	if spec.Metrics != nil {
		add(spec.Metrics.Auth)
	}
	for _, b := range spec.Brakes {
		add(b.Auth)
	}
	return out
}
