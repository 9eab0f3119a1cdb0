package corpus

import (
	"context"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/kb"
)

const dir = "../../testdata/reports"

// The corpus is real data with strict fields; every class it names must be
// one the knowledge base knows (or "other").
func TestCorpusIsWellFormed(t *testing.T) {
	rs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 600 {
		t.Errorf("the corpus holds %d reports, want at least 600", len(rs))
	}
	k := kb.MustDefault()
	deep := 0
	for _, r := range rs {
		for _, c := range []string{r.Surface, r.Root} {
			if _, ok := k.Class(c); !ok && c != "other" {
				t.Errorf("%s:%d: unknown class %q", r.File, r.Line, c)
			}
		}
		if r.Surface != r.Root {
			deep++
		}
	}
	if deep < 150 {
		t.Errorf("%d reports have a root other than their surface, want at least 150", deep)
	}
}

// The split is a function of the address alone: it must never move.
func TestSplitIsFrozen(t *testing.T) {
	for url, want := range map[string]Split{
		"https://github.com/vllm-project/vllm/issues/18835":              SplitOf("github.com/vllm-project/vllm/issues/18835"),
		"https://www.github.com/facebookresearch/detectron2/issues/235/": SplitOf("github.com/facebookresearch/detectron2/issues/235"),
	} {
		if got := SplitOf(url); got != want {
			t.Errorf("SplitOf(%s) = %s, want %s (normalisation changed)", url, got, want)
		}
	}
	rs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	test := 0
	for _, r := range rs {
		if SplitOf(r.URL) == Test {
			test++
		}
	}
	if share := float64(test) / float64(len(rs)); share < 0.12 || share > 0.28 {
		t.Errorf("test split holds %.2f of the corpus, want about 0.20", share)
	}
}

// floors are the landed accuracies on each split: a change that lowers one
// fails here. Raise them when the numbers rise (go run ./bench/reports).
// Only adding reports may move them down, in the same commit as the
// reports: new test reports are a new measurement, not a regression.
var floors = map[Split]struct{ top1, top3, silent, deep float64 }{
	Tune: {top1: 0.882, top3: 0.926, silent: 0.021, deep: 0.599},
	Test: {top1: 0.791, top3: 0.864, silent: 0.070, deep: 0.319},
}

func TestAccuracyDoesNotRegress(t *testing.T) {
	rs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := diagnose.New(kb.MustDefault())
	parts := map[Split][]Report{}
	for _, r := range rs {
		parts[SplitOf(r.URL)] = append(parts[SplitOf(r.URL)], r)
	}
	for sp, f := range floors {
		out := Run(context.Background(), e, parts[sp])
		for _, o := range out {
			if o.Err != nil {
				t.Errorf("%s:%d: %v", o.Report.File, o.Report.Line, o.Err)
			}
		}
		s := Measure(out)
		top1, top3, silent, deep := s.Rates()
		t.Logf("%s: %s", sp, s.Summary())
		if top1 < f.top1 || top3 < f.top3 || silent > f.silent || deep < f.deep {
			t.Errorf("%s split regressed: %s; floors top1>=%.3f top3>=%.3f silent<=%.3f surface!=root top1>=%.3f",
				sp, s.Summary(), f.top1, f.top3, f.silent, f.deep)
		}
	}
}
