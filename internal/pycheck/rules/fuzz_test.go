package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
)

// FuzzLint feeds arbitrary bytes to the parser and every rule: nothing may
// panic (a rule panic surfaces as an "internal error" finding) and every
// finding must have a real position.
func FuzzLint(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "*.py"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("import torch\nx = \"\"\"unterminated"))
	f.Add([]byte("torch\x00\xff\xfe cuda.amp non_blocking=True def forward"))
	f.Add([]byte("import torch\nwith torch.cuda.graph(g):\n  x.item(\n"))
	l := &pycheck.Linter{Rules: All()}
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := strings.Count(string(src), "\n") + 1
		for _, fd := range l.LintSource("f.py", src) {
			if strings.Contains(fd.Message, "internal error") {
				t.Fatalf("rule crashed: %s", fd.Message)
			}
			if fd.Location == nil || fd.Location.Line < 1 || fd.Location.Line > lines || fd.Location.Column < 1 {
				t.Fatalf("bad location %+v", fd.Location)
			}
		}
	})
}
