package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// TestHealthyLogs runs the real knowledge base over logs of runs that
// finished: committed training logs from public repositories
// (testdata/healthy/logs, sources in testdata/healthy/SOURCES.md) and short
// traps whose words look like failures (testdata/healthy/traps). None may
// give an error or a warning.
func TestHealthyLogs(t *testing.T) {
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	e := New(k)
	n := 0
	for _, dir := range []string{"../../testdata/healthy/logs", "../../testdata/healthy/traps"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, ent := range ents {
			p := filepath.Join(dir, ent.Name())
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			out, err := e.Explain(context.Background(), []Input{{Name: p, Reader: f}})
			f.Close()
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			n++
			for _, fd := range out {
				if fd.Severity >= report.Warning {
					t.Errorf("%s: false alarm %s[%s] at line %d: %s", p, fd.Severity, fd.Class, line(fd.Location), fd.Message)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d healthy logs, want 100 or more", n)
	}
}

// TestGateKeepsRealFailures: the evidence the gate asks for is there when
// the run really failed, so the finding stays an error.
func TestGateKeepsRealFailures(t *testing.T) {
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	e := New(k)
	cases := map[string]string{
		"loss stays nan": "{'loss': 1.93, 'epoch': 0.1}\n{'loss': nan, 'epoch': 0.2}\n{'loss': nan, 'epoch': 0.3}\n{'loss': nan, 'epoch': 0.4}\n",
		"nan then crash": "{'loss': 1.93, 'epoch': 0.1}\n{'loss': nan, 'epoch': 0.2}\nTraceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    raise FloatingPointError('Loss became infinite or NaN at iteration=20!')\nFloatingPointError: Loss became infinite or NaN at iteration=20!\n",
		"killed at end":  "epoch 1 loss=0.71\nTraining complete for stage 1\nepoch 2 loss=0.66\nKilled\n",
	}
	for name, text := range cases {
		out := explainText(t, e, text)
		if len(out) == 0 || out[0].Severity != report.Error {
			t.Errorf("%s: want an error finding, got %+v", name, out)
		}
	}
	// A caught exception in a run that finished is kept, as information.
	out := explainText(t, e, "step 10 loss 2.1\nTraceback (most recent call last):\n  File \"eval.py\", line 88, in evaluate_all\n    state = torch.load(path)\nRuntimeError: Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1.\nstep 20 loss 1.9\nTraining complete, model saved\n")
	if len(out) != 1 || out[0].Severity != report.Info || !strings.Contains(out[0].Message, "went on and finished") {
		t.Errorf("caught exception: want one info finding that says the run finished, got %+v", out)
	}
}

func TestLastLoss(t *testing.T) {
	for in, want := range map[string]int{
		"":                              -1,
		"no such word; boss moss":       -1,
		"loss 1\nLoss 2\nstep":          7,
		"train_loss=0.1 val_loss=0.2 x": 19,
		"lossloss":                      4,
		"glossary: loss of a gloss":     21,
	} {
		if got := lastLoss([]byte(in)); got != want {
			t.Errorf("lastLoss(%q) = %d, want %d", in, got, want)
		}
	}
}
