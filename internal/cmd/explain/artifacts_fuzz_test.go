package explain

import (
	"bytes"
	"context"
	"github.com/cudadoctor/cudadoctor/internal/flightrec"
	"io"
	"os"
	"testing"
)

// FuzzSplitStdin sniffs arbitrary standard input: it must never panic, and
// input judged to be a log must reach the log engine byte for byte.
func FuzzSplitStdin(f *testing.F) {
	f.Add([]byte("Traceback (most recent call last):\n"))
	f.Add([]byte(`{"level":"info"}` + "\n" + `{"level":"error"}` + "\n"))
	f.Add([]byte(`{"schema_version": 1, "tool": {"name": "cudadoctor"}, "findings": []}`))
	f.Add([]byte(`{"version": "2.10", "pg_config": {}, "entries": []}`))
	f.Add([]byte("\x80\x02}."))
	if real, err := os.ReadFile("../../../testdata/gpu/artifacts/n1_flight_recorder_rank_0.pickle"); err == nil {
		f.Add(real)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		logs, _, err := splitInputs(ctx, []*input{newStream(ctx, "-", bytes.NewReader(data))}, flightrec.MaxDumpBytes)
		if err != nil || len(logs) == 0 {
			return
		}
		got, err := io.ReadAll(logs[0].reader(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("the log engine would read %d bytes of %d", len(got), len(data))
		}
	})
}
