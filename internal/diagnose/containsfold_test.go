package diagnose

import (
	"bytes"
	"testing"
)

func TestContainsFoldAgreesWithLower(t *testing.T) {
	for _, c := range []struct{ s, sub string }{
		{"grad_norm 1.23 tokens/s", "nan"}, {"grad_norm: NaN", "nan"}, {"x nAn", "nan"}, {"", "nan"}, {"na", "nan"},
		{"NAN", "nan"}, {"abc CUDA error", "cuda"}, {"nnnnnnan", "nan"}, {"Nnan", "nan"}, {"ñan", "nan"}, {"a1b", "1b"}, {"xx", ""},
	} {
		want := bytes.Contains(bytes.ToLower([]byte(c.s)), bytes.ToLower([]byte(c.sub)))
		if got := containsFold([]byte(c.s), []byte(c.sub)); got != want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", c.s, c.sub, got, want)
		}
	}
}
