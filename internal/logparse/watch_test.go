package logparse

import "testing"

func TestWatchReaders(t *testing.T) {
	// StripRank is stripRank (TestStripRank has the forms).
	if r, rest := StripRank("[rank3]: Traceback (most recent call last):"); r != 3 || rest != "Traceback (most recent call last):" {
		t.Errorf("StripRank = %d, %q", r, rest)
	}
	for _, tc := range []struct {
		line       string
		path, fn   string
		lineNumber int
	}{
		{`  File "/work/train.py", line 12, in step`, "/work/train.py", "step", 12},
		{`File "/work/train.py", line 12, in <module>`, "/work/train.py", "<module>", 12},
		{`Cell In[3], line 7, in f(x)`, "In[3]", "f", 7},
	} {
		fr, ok := ParseFrame(tc.line)
		if !ok || fr.Path != tc.path || fr.Function != tc.fn || fr.Line != tc.lineNumber {
			t.Errorf("ParseFrame(%q) = %+v, %v", tc.line, fr, ok)
		}
	}
	if _, ok := ParseFrame("    x = model(batch)"); ok {
		t.Error("a code line read as a frame")
	}
	if r, ok := SummaryRank("  rank      : 5 (local_rank: 1)"); !ok || r != 5 {
		t.Errorf("SummaryRank = %d, %v", r, ok)
	}
	if _, ok := SummaryRank("  host      : node1"); ok {
		t.Error("host read as a rank")
	}
	if !HasAsyncHint("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.") {
		t.Error("PyTorch's note not recognised")
	}
	if HasAsyncHint("errors are reported synchronously") {
		t.Error("a look-alike taken for the note")
	}
	// The literal gate before the regex folds case as the regex does, and
	// a rune that folds to 's' (U+017F) still reaches the regex.
	for _, l := range []string{"ERRORS MIGHT BE ASYNCHRONOUSLY REPORTED AT SOME OTHER API CALL", "might be aſynchronously reported at ſome other API call"} {
		if !HasAsyncHint(l) {
			t.Errorf("%q not recognised", l)
		}
	}
}
