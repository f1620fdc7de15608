package fleet

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Every request of an agent is signed with its own key, random per run:
//
//	Authorization: Trigger-HMAC index=I seq=S mac=HEX
//
// where HEX is the HMAC-SHA256, under agent I's key, of the method, the
// path with its query, I, S and the body, each on a line of its own. S
// grows with every request the agent makes; the coordinator answers a
// request whose S is not above the last one it accepted from that agent
// with 409 (a replay), one without a valid signature with 401 or 403.

// AuthScheme is the Authorization header's scheme.
const AuthScheme = "Trigger-HMAC"

// KeyEnv is the environment variable an agent reads its key from (hex).
const KeyEnv = "TRIGGER_AGENT_KEY"

// keyBytes is the length of an agent's key.
const keyBytes = 32

// newKey is a random key, hex.
func newKey() string {
	b := make([]byte, keyBytes)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// parseKey reads an agent's key (hex, at least 16 bytes).
func parseKey(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) < 16 {
		return nil, fmt.Errorf("agent key: want at least 32 hex digits")
	}
	return b, nil
}

// sign is the MAC of one request.
func sign(key []byte, method, pathQuery string, index int, seq uint64, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\n%s\n%d\n%d\n", method, pathQuery, index, seq)
	m.Write(body)
	return m.Sum(nil)
}

// authHeader is the Authorization header of one request.
func authHeader(key []byte, method, pathQuery string, index int, seq uint64, body []byte) string {
	return fmt.Sprintf("%s index=%d seq=%d mac=%s", AuthScheme, index, seq, hex.EncodeToString(sign(key, method, pathQuery, index, seq, body)))
}

// authFields are what an Authorization header claims.
type authFields struct {
	index int
	seq   uint64
	mac   []byte
}

// parseAuth reads an Authorization header; false when it is not ours.
func parseAuth(h string) (authFields, bool) {
	var f authFields
	rest, ok := strings.CutPrefix(h, AuthScheme+" ")
	if !ok {
		return f, false
	}
	seen := 0
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "index":
			f.index, err = strconv.Atoi(v)
		case "seq":
			f.seq, err = strconv.ParseUint(v, 10, 64)
		case "mac":
			f.mac, err = hex.DecodeString(v)
		default:
			return f, false
		}
		if err != nil {
			return f, false
		}
		seen++
	}
	return f, seen == 3 && len(f.mac) == sha256.Size
}

// Sign signs req, whose body is body, as agent index's request number seq
// under key (hex): what every agent does (tests that speak the protocol
// themselves).
func Sign(req *http.Request, key string, index int, seq uint64, body []byte) error {
	k, err := parseKey(key)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", authHeader(k, req.Method, req.URL.RequestURI(), index, seq, body))
	return nil
}
