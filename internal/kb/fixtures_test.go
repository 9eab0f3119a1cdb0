package kb

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// fixtureDir holds the real GPU logs and their manifest.
const fixtureDir = "../../testdata/gpu"

type manifestEntry struct {
	Log   string  `json:"log"`
	Class *string `json:"class"`
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestFixtureLogs classifies every real GPU log as a whole: failing logs must
// come out as the manifest's class, healthy logs (class null) as nothing or
// as a class below error severity.
func TestFixtureLogs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtureDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest []manifestEntry
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	if len(manifest) < 50 {
		t.Fatalf("manifest lists only %d logs", len(manifest))
	}
	k := MustDefault()
	for _, e := range manifest {
		t.Run(filepath.Base(e.Log), func(t *testing.T) {
			v, ok := k.Classify(readLines(t, filepath.Join(fixtureDir, e.Log)))
			if e.Class == nil {
				if ok && v.Class.Severity >= report.Error {
					t.Errorf("healthy log classified as %s (line %d, signature %s)", v.Class.ID, v.Primary+1, v.Signature.ID)
				}
				return
			}
			if !ok {
				t.Fatalf("classified as nothing, want %s", *e.Class)
			}
			if msg := v.Message(); msg == "" || strings.Contains(msg, "{") {
				t.Errorf("message %q", msg)
			}
			for _, r := range v.Remedies(map[string]string{"origin": "train.py:4", "command": "python train.py"}) {
				if strings.Contains(r, "{") {
					t.Errorf("remedy with an unfilled hole: %q", r)
				}
			}
			if v.Class.ID != *e.Class {
				t.Errorf("classified as %s (surface %s, line %d, signature %s, why %v), want %s",
					v.Class.ID, v.Surface.ID, v.Primary+1, v.Signature.ID, v.Why, *e.Class)
			}
		})
	}
}
