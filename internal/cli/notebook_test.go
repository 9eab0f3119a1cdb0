package cli

import (
	"encoding/json"
	"testing"
)

// TestBareAssertRefinedFromTheStatement: notebooks never show the kernel's
// own assertion line, so a bare "device-side assert triggered" is refined
// from the statement the traceback prints.
func TestBareAssertRefinedFromTheStatement(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"loss = F.cross_entropy(logits, labels)", "device-assert-target"},
		{"vectors = F.embedding(ids, table)", "device-assert-index"},
		{"probs = torch.sigmoid(x); loss = F.binary_cross_entropy(probs, y)", "device-assert-range"},
		{"x = model(batch)", "device-assert-other"},
	} {
		log := "Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n    " + tc.code +
			"\nRuntimeError: CUDA error: device-side assert triggered\n"
		code, out, stderr := runCLI(t, log, "explain", "--format", "json", "-")
		if code != ExitFindings {
			t.Fatalf("%s: exit %d (%s)", tc.code, code, stderr)
		}
		var rep struct {
			Findings []struct {
				Class string `json:"class"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Findings) == 0 {
			t.Fatalf("%s: no finding (%v): %s", tc.code, err, out)
		}
		if got := rep.Findings[0].Class; got != tc.want {
			t.Errorf("%s: class %s, want %s", tc.code, got, tc.want)
		}
	}
}
