package flightrec

import (
	"os"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
)

// FuzzDecode feeds arbitrary bytes to the decoder and, when they decode, to
// the analysis: a bad file must give an error, never a panic or a hang.
func FuzzDecode(f *testing.F) {
	if real, err := os.ReadFile(realDump); err == nil {
		f.Add(real)
	}
	f.Add(frtest.EncodePickle(n1Both.Dump(0)))
	f.Add(frtest.EncodePickle(n1Both.Dump(1)))
	f.Add(frtest.EncodeJSON(n1Both.Dump(0)))
	f.Add(frtest.EncodePickle(map[string]any{"version": "2.10", "entries": []any{map[string]any{"input_sizes": []any{frtest.IntList{int64(3)}}}}}))
	f.Add([]byte("\x80\x02}(K\x01u."))
	f.Add([]byte("\x80\x02]q\x00(h\x00e."))
	f.Add([]byte(`{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":"3"}}}`))
	peers := [][]byte{frtest.EncodePickle(n1Both.Dump(0))}
	// Fixture n8's real dumps: three groups, a deadlock across them.
	if r0, err := os.ReadFile(n8Dump + "0"); err == nil {
		peers = append(peers, r0)
	}
	if r1, err := os.ReadFile(n8Dump + "1"); err == nil {
		f.Add(r1)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeBytes(data, "nccl_trace_rank_1")
		if err != nil {
			return
		}
		if _, err := Analyze([]*Dump{d}); err != nil {
			t.Fatalf("analysis of a decoded dump failed: %v", err)
		}
		// And matched against well-formed rank 0s.
		for _, peer := range peers {
			p, err := DecodeBytes(peer, "nccl_trace_rank_0")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Analyze([]*Dump{p, d}); err != nil {
				t.Fatalf("analysis of two dumps failed: %v", err)
			}
		}
	})
}
