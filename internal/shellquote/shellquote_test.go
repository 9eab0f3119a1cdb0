package shellquote

import (
	"os/exec"
	"testing"
)

func TestWord(t *testing.T) {
	for in, want := range map[string]string{
		"train.py":               "train.py",
		"/a/b-c_d.py":            "/a/b-c_d.py",
		"CUDA_LAUNCH_BLOCKING=1": "CUDA_LAUNCH_BLOCKING=1",
		"":                       "''",
		"my file.py":             "'my file.py'",
		"/tmp/x$(touch PWN).py":  "'/tmp/x$(touch PWN).py'",
		"it's":                   `'it'\''s'`,
	} {
		if got := Word(in); got != want {
			t.Errorf("Word(%q) = %s, want %s", in, got, want)
		}
	}
}

// What Join renders, a real shell splits back into the same words and runs
// nothing else.
func TestJoinRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	argv := []string{"printf", "%s\\n", "a b", "$(echo PWN)", "it's", "", "`x`", ";", "*"}
	out, err := exec.Command(sh, "-c", Join(argv)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "a b\n$(echo PWN)\nit's\n\n`x`\n;\n*\n"
	if string(out) != want {
		t.Errorf("sh ran %q: got %q, want %q", Join(argv), out, want)
	}
}
