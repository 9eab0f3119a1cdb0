package diagnose

import (
	"io"
	"strings"
	"testing"
)

// TestFinishedAtWordsCoverRegexp checks that the literal pre-check before
// finishedRE never hides a match: every tail the regexp matches is found,
// in any case, and tails without the words are not.
func TestFinishedAtWordsCoverRegexp(t *testing.T) {
	tails := []struct {
		text string
		want int // line of the finished line, 0 for none
	}{
		{"step 1\nTraining completed\n", 2},
		{"step 1\nTRAINING IS DONE\n", 2},
		{"x\ny\nDone Training.\n", 3},
		{"Trainer.fit` stopped: max_epochs=3 reached.\n", 1},
		{"worker exits successfully\n", 1},
		{"Reached max steps 1000\n", 1},
		{"total TRAINING TIME: 3h\n", 1},
		{"evaluation finished\n", 1},
		{"INFERENCING COMPLETE\n", 1},
		{"{'train_runtime': 12.5}\n", 1},
		{"reached max ſteps\n", 1}, // the long s folds to s
		{"Training completed\nTraceback (most recent call last):\n", 0},
		{"step 1 loss 0.5\nstep 2 loss 0.4\n", 0},
		{"", 0},
	}
	for _, tc := range tails {
		tr := &tracker{r: strings.NewReader(tc.text)}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ { // the second answer is the remembered one
			got, text := tr.finishedAt()
			if got != tc.want {
				t.Errorf("%q: finished at line %d (%q), want %d", tc.text, got, text, tc.want)
			}
			if regexpSays := finishedRE.MatchString(tc.text); regexpSays != (tc.want > 0) && !strings.Contains(tc.text, "Traceback") {
				t.Errorf("%q: case is wrong: finishedRE says %v", tc.text, regexpSays)
			}
		}
	}
}
