package diagnose

import (
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A paste whose last line opens with a '>' glued to a timestamp, after
// progress lines: the re-flow search met the same line break again past
// it and went round for ever (a 4-line log hung explain).
func TestReflowSearchEnds(t *testing.T) {
	text := "[1687/5000] train_loss: 1.3138\n" +
		"2025-03-14 09:12:49,417 - trainer - INFO - tokens/s 14351.6\n" +
		"[3194/5000] train_loss: 1.5760\n" +
		">2024-07-03T12:58:57.481034Z  WARN x: Unable to use Flash Attention V2: GPU with CUDA capability 7 5 is not supported for Flash Attention V2\n"
	e := New(kb.MustDefault())
	done := make(chan struct{})
	go func() {
		explainText(t, e, text)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("explain did not finish on a 4-line paste")
	}
}
