package loadgen

import (
	"net/http"
	"testing"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// BenchmarkRenderLean is one logical request's rendering on the lean
// path: a POST whose key, JSON body and query hold every kind of
// per-request value (bench/loadgen's -mix quote and search in one).
func BenchmarkRenderLean(b *testing.B) {
	fixed := len(vocab.FixedSlots())
	slots := append(vocab.FixedSlots(),
		vocab.Slot{Value: vocab.PerDataColumn, Column: 0, JSON: true},
		vocab.Slot{Value: vocab.PerDataColumn, Column: 1},
		vocab.Slot{Value: vocab.PerRandomInt, Lo: 1, Hi: 9})
	users := vocab.DataSet{Columns: []string{"email", "name"}, Rows: [][]string{{"user1@example.com", "User 1"}, {"user2@example.com", "User 2"}}}
	d, err := NewDriver(Config{
		Request: Request{Method: "POST", URL: "http://127.0.0.1:1/v1/quote?q=" + vocab.Marker(fixed+1),
			Header: http.Header{"Idempotency-Key": {vocab.PerRequestID.Marker()}, "Content-Type": {"application/json"}},
			Body: []byte(`{"n":` + vocab.PerRequestSeq.Marker() + `,"qty":` + vocab.Marker(fixed+2) + `,"u":"` + vocab.PerRandomUUID.Marker() +
				`","user":"` + vocab.Marker(fixed) + `"}`)},
		Slots: slots, Data: []vocab.DataSet{users},
		Stages: []Stage{Constant(time.Second, 1)}, Timeout: time.Second,
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, ok := d.path.(leanPath); !ok {
		b.Fatal("not on the lean path")
	}
	b.ReportAllocs()
	for i := range b.N {
		if _, err := d.render(logical{id: uint64(i + 1), attempt: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
