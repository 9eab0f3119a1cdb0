package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A remedy contradicts its finding when the finding's own evidence makes
// it wrong or moot. Each check is a predicate of the finding, so a new
// fixture, class or remedy is judged without a list of expected outputs.
type remedyCheck struct {
	name string
	// bad returns why remedy i of f contradicts f, or "".
	bad func(f jsonFinding, i int) string
}

var (
	// batchSizeRE: advice to make the batch smaller.
	batchSizeRE = regexp.MustCompile(`(?i)\b(?:reduce|lower|decrease|smaller)\b[^.;:]{0,40}\bbatch[ _]size\b|\bsmaller batch\b`)
	// blockingRerunRE: advice to re-run so that the error is reported at
	// its origin (run's blocking re-run; not run --memory-snapshot).
	blockingRerunRE = regexp.MustCompile("CUDA_LAUNCH_BLOCKING=1|cudadoctor run -- ")
	// pytorchOnlyFixRE: a fix only a PyTorch program can apply.
	pytorchOnlyFixRE = regexp.MustCompile(`\btorch\.|PYTORCH_CUDA_ALLOC_CONF|TORCH_USE_CUDA_DSA|torch\.autocast|loss\.item\(\)`)
	wordRE           = regexp.MustCompile(`[a-z0-9_]+`)
)

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		out[w] = true
	}
	return out
}

// overlap is the share of a's words that b also has.
func overlap(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// glueWords carry no advice of their own.
var glueWords = map[string]bool{"the": true, "a": true, "an": true, "with": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "and": true, "or": true, "is": true, "it": true, "this": true, "that": true, "was": true, "be": true}

// batchScaled: the failing resource grows with the batch: memory (an
// out-of-memory error) or one kernel's run time (a launch killed by the
// display watchdog). For any other failure a smaller batch hides nothing
// but the symptom.
func batchScaled(class string) bool {
	return class == "oom" || class == "oom-fragmentation" || class == "launch-timeout"
}

var remedyChecks = []remedyCheck{
	{"batch-size advice only where the batch scales the failing resource", func(f jsonFinding, i int) string {
		if batchSizeRE.MatchString(f.Remedies[i]) && !batchScaled(f.Class) {
			return "tells a " + f.Class + " finding to shrink the batch"
		}
		return ""
	}},
	{"no blocking re-run once the origin is known", func(f jsonFinding, i int) string {
		async, _ := f.Facts["reported_asynchronously"].(bool)
		confirmed := f.Origin != nil && f.Reported == nil && !async
		if confirmed && blockingRerunRE.MatchString(f.Remedies[i]) {
			return fmt.Sprintf("the origin %s:%d is known, yet it asks for a re-run to find it", f.Origin.Path, f.Origin.Line)
		}
		return ""
	}},
	{"no PyTorch fix for a JAX or TensorFlow log", func(f jsonFinding, i int) string {
		if fw, _ := f.Facts["framework"].(string); (fw == "jax" || fw == "tensorflow") && pytorchOnlyFixRE.MatchString(f.Remedies[i]) {
			return "a PyTorch fix for a " + fw + " log"
		}
		return ""
	}},
	{"no two fixes say the same", func(f jsonFinding, i int) string {
		wi := words(f.Remedies[i])
		for j := 0; j < i; j++ {
			wj := words(f.Remedies[j])
			if overlap(wi, wj) >= 0.8 && overlap(wj, wi) >= 0.8 {
				return fmt.Sprintf("repeats fix %d", j+1)
			}
		}
		return ""
	}},
	{"a fix adds something to the error it fixes", func(f jsonFinding, i int) string {
		said := words(f.Message)
		for _, e := range f.Evidence {
			for w := range words(e.Text) {
				said[w] = true
			}
		}
		var added []string
		for w := range words(f.Remedies[i]) {
			if !said[w] && !glueWords[w] {
				added = append(added, w)
			}
		}
		if len(added) < 3 {
			return fmt.Sprintf("only restates the error (adds %v)", added)
		}
		return ""
	}},
}

// knowledgeBaseExamples runs every match example of the knowledge base
// (real log excerpts) through explain, as more findings to judge.
func knowledgeBaseExamples(t *testing.T) []fixtureCase {
	t.Helper()
	var cases []fixtureCase
	for _, cl := range kb.MustDefault().Classes {
		for i, ex := range cl.Examples.Match {
			code, out, errs := runFake(t, ex.Text, false, nil, "explain", "--format", "json", "--fail-on", "never")
			if code != 0 {
				t.Fatalf("%s example %d: exit %d: %s", cl.ID, i, code, errs)
			}
			var rep struct {
				Findings []jsonFinding `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, fixtureCase{name: fmt.Sprintf("kb %s example %d", cl.ID, i+1), findings: rep.Findings})
		}
	}
	return cases
}

// TestNoRemedyContradictsItsFinding walks every shared fixture's findings
// and those of the knowledge base's examples.
func TestNoRemedyContradictsItsFinding(t *testing.T) {
	checked := 0
	for _, c := range append(explainSharedFixtures(t), knowledgeBaseExamples(t)...) {
		for _, f := range c.findings {
			for i := range f.Remedies {
				checked++
				for _, rc := range remedyChecks {
					if why := rc.bad(f, i); why != "" {
						t.Errorf("%s: %s %q, fix %d (%s): %s\n    %s", c.name, f.Severity, f.Class, i+1, rc.name, why, f.Remedies[i])
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d remedies checked: the fixtures are not being read", checked)
	}
}

// Each check fires on the contradiction it names and not on its neighbour.
func TestRemedyChecks(t *testing.T) {
	origin := &jsonLoc{Path: "train.py", Line: 12}
	tests := []struct {
		check string
		f     jsonFinding
		fires bool
	}{
		{"batch", jsonFinding{Class: "shape-mismatch", Remedies: []string{"Reduce the batch size."}}, true},
		{"batch", jsonFinding{Class: "oom", Remedies: []string{"Reduce the batch size."}}, false},
		{"batch", jsonFinding{Class: "shape-mismatch", Remedies: []string{"Check the batch dimension of the input."}}, false},
		{"blocking", jsonFinding{Origin: origin, Remedies: []string{"Re-run with CUDA_LAUNCH_BLOCKING=1 to find the line."}}, true},
		{"blocking", jsonFinding{Origin: origin, Reported: &jsonLoc{Path: "train.py", Line: 30}, Remedies: []string{"Re-run with CUDA_LAUNCH_BLOCKING=1 to find the line."}}, false},
		{"blocking", jsonFinding{Origin: origin, Facts: map[string]any{"reported_asynchronously": true}, Remedies: []string{"Run `cudadoctor run -- python train.py`."}}, false},
		{"blocking", jsonFinding{Origin: origin, Remedies: []string{"`cudadoctor run --memory-snapshot -- python train.py` names the line."}}, false},
		{"framework", jsonFinding{Facts: map[string]any{"framework": "jax"}, Remedies: []string{"Use torch.autocast."}}, true},
		{"framework", jsonFinding{Remedies: []string{"Use torch.autocast."}}, false},
		{"same", jsonFinding{Remedies: []string{"Re-run with CUDA_LAUNCH_BLOCKING=1: the real error then appears at its own line.", "Re-run with CUDA_LAUNCH_BLOCKING=1 (the real error then appears at its own line)."}}, true},
		{"same", jsonFinding{Remedies: []string{"Re-run with CUDA_LAUNCH_BLOCKING=1.", "Check the embedding's num_embeddings against the largest token id."}}, false},
		{"restate", jsonFinding{Message: "cuBLAS failed", Evidence: []jsonEvidence{{Text: "CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa)`"}},
			Remedies: []string{"The call cublasSgemm failed with CUBLAS_STATUS_EXECUTION_FAILED."}}, true},
		{"restate", jsonFinding{Message: "cuBLAS failed", Evidence: []jsonEvidence{{Text: "CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa)`"}},
			Remedies: []string{"Check that token ids are below the embedding's num_embeddings before the matmul."}}, false},
	}
	byName := map[string]remedyCheck{}
	for _, rc := range remedyChecks {
		switch {
		case strings.HasPrefix(rc.name, "batch"):
			byName["batch"] = rc
		case strings.Contains(rc.name, "blocking"):
			byName["blocking"] = rc
		case strings.Contains(rc.name, "JAX"):
			byName["framework"] = rc
		case strings.Contains(rc.name, "same"):
			byName["same"] = rc
		case strings.Contains(rc.name, "restates") || strings.Contains(rc.name, "adds something"):
			byName["restate"] = rc
		}
	}
	if len(byName) != len(remedyChecks) {
		t.Fatalf("%d checks, %d named here", len(remedyChecks), len(byName))
	}
	for i, tt := range tests {
		rc := byName[tt.check]
		fired := false
		for j := range tt.f.Remedies {
			if rc.bad(tt.f, j) != "" {
				fired = true
			}
		}
		if fired != tt.fires {
			t.Errorf("case %d (%s): fired %v, want %v", i, tt.check, fired, tt.fires)
		}
	}
}
