package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/golden"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func sample() *report.Report {
	r := report.New("explain", "0.1.0")
	r.Rules = []report.RuleDoc{{ID: "device-assert-index", Kind: report.KindClass, Title: "Index out of range", Severity: report.Error, Summary: "An index tensor holds out-of-range values.", Sections: []report.DocSection{{Title: "What to do", Body: "- check the vocabulary size"}}, References: []string{"https://docs.pytorch.org/docs/stable/generated/torch.nn.Embedding.html"}}}
	r.Findings = []report.Finding{{
		Rule: "device-assert-index", Class: "device-assert-index", Alternatives: []string{"illegal-address"}, SettleBy: map[string]string{"illegal-address": "compute-sanitizer names an out-of-bounds access instead of an assert"}, Severity: report.Error,
		Message:  "an index passed to an embedding lookup is out of range",
		Location: &report.Location{Path: "train.log", Line: 912},
		Origin:   &report.Location{Path: "train.py", Line: 4, Function: "<module>", Code: "hidden = emb(tokens)"},
		Reported: &report.Location{Path: "train.py", Line: 5, Function: "<module>"},
		Rank:     report.IntPtr(1),
		Evidence: []report.Evidence{{Path: "train.log", Line: 1, Text: "IndexKernelUtils.cu:16: vectorized_gather_kernel: Assertion `ind >=0` failed.", Count: 896}},
		Facts:    map[string]any{"kernel": "vectorized_gather_kernel"},
		Remedies: []string{"Check that every id is below num_embeddings.", "Re-run with:\nCUDA_LAUNCH_BLOCKING=1 python train.py"},
		Related:  []report.Related{{Message: "NCCL watchdog timeout (a consequence)", Rank: report.IntPtr(0)}},
	}}
	return r
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func TestTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sample.txt", b.Bytes())
	if strings.Contains(b.String(), "\x1b[") {
		t.Error("plain text output contains ANSI codes")
	}
}

func TestTextColor(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[") {
		t.Error("colour output has no ANSI codes")
	}
}

func TestTextNoFindings(t *testing.T) {
	for _, tc := range []struct{ own, want string }{
		{"all checks passed", "all checks passed\n"},
		{"", "nothing to report\n"},
	} {
		var b bytes.Buffer
		if err := Text(&b, report.New("explain", "x"), Options{NothingFound: tc.own}); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("NothingFound %q: got %q, want %q", tc.own, b.String(), tc.want)
		}
	}
}

func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sample.json", b.Bytes())
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "tool", "command", "findings"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if _, ok := doc["Rules"]; ok {
		t.Error("rule docs leaked into JSON")
	}
}

func TestJSONEmptyFindingsIsArray(t *testing.T) {
	var b bytes.Buffer
	r := report.New("explain", "x")
	r.Findings = nil
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"findings": []`) {
		t.Errorf("findings must be [], got %s", b.String())
	}
}

func TestSARIFStructure(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex *int   `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []json.RawMessage `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("bad envelope: %+v", log)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != 1 || !strings.Contains(run.Tool.Driver.Rules[0].Help.Text, "What to do") {
		t.Errorf("rule help missing: %+v", run.Tool.Driver.Rules)
	}
	if len(run.Results) != 1 {
		t.Fatalf("want 1 result, got %d", len(run.Results))
	}
	res := run.Results[0]
	if res.Level != "error" || res.RuleIndex == nil || *res.RuleIndex != 0 {
		t.Errorf("bad result header: %+v", res)
	}
	// The primary location is the origin (where the user acts), the
	// reported line and the log line are related locations.
	if got := res.Locations[0].PhysicalLocation; got.ArtifactLocation.URI != "train.py" || got.Region.StartLine != 4 {
		t.Errorf("primary location %+v, want train.py:4", got)
	}
	if len(res.RelatedLocations) != 2 {
		t.Errorf("want 2 related locations, got %d", len(res.RelatedLocations))
	}
}

func TestGitHubGolden(t *testing.T) {
	var b bytes.Buffer
	if err := GitHub(&b, sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sample.github", b.Bytes())
}

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sample.md", b.Bytes())
}

// TestGitHubAnnotationPlacement: the annotation sits on the origin when it is
// known, else on the evidence; absolute paths under the checkout become
// relative; the characters that end a workflow command are escaped.
func TestGitHubAnnotationPlacement(t *testing.T) {
	r := report.New("explain", "0.1.0")
	r.Findings = []report.Finding{
		{Rule: "oom", Severity: report.Error, Message: "100% of 80 GiB used,\nthen: more",
			Location: &report.Location{Path: "train.log", Line: 7},
			Origin:   &report.Location{Path: "/home/runner/work/app/app/src/train.py", Line: 13}},
		{Rule: "illegal-address", Severity: report.Warning, Message: "async",
			Location: &report.Location{Path: "train.log", Line: 20},
			Reported: &report.Location{Path: "/elsewhere/model.py", Line: 3}},
		{Rule: "env/driver-version", Severity: report.Info, Message: "old driver"},
		{Rule: "CD101", Severity: report.Warning, Message: "lint", Location: &report.Location{Path: "a,b:c.py", Line: 2, Column: 5}},
	}
	var b bytes.Buffer
	if err := GitHub(&b, r, Options{Root: "/home/runner/work/app/app"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"::error file=src/train.py,line=13,title=cudadoctor oom::100%25 of 80 GiB used,%0Athen: more%0ASeen at train.log:7.",
		"::warning file=train.log,line=20,title=cudadoctor illegal-address::async%0AThe traceback pointed at /elsewhere/model.py:3 (reported asynchronously).",
		"::notice title=cudadoctor env/driver-version::old driver",
		"::warning file=a%2Cb%3Ac.py,line=2,col=5,title=cudadoctor CD101::lint",
	}
	if d := cmp.Diff(strings.Join(want, "\n")+"\n", b.String()); d != "" {
		t.Error(d)
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"in <module>":                        `in \<module\>`,
		"vectorized_gather_kernel failed":    "vectorized_gather_kernel failed",
		"_private and *args":                 `\_private and \*args`,
		"run `CUDA_LAUNCH_BLOCKING=1 <cmd>`": "run `CUDA_LAUNCH_BLOCKING=1 <cmd>`",
		"odd ` tick <x>":                     "odd \\` tick \\<x\\>",
		"a | b":                              `a \| b`,
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MarkdownCode("a `b` c"); got != "``a `b` c``" {
		t.Errorf("mdCode = %q", got)
	}
}

// TestSARIFPointsAtTheOrigin: code scanning places a result at its first
// location, so that is the origin in the user's source; the log line the
// evidence came from is a related location.
func TestSARIFPointsAtTheOrigin(t *testing.T) {
	r := sample()
	r.Findings[0].Origin.Path = "/repo/src/train.py"
	var b bytes.Buffer
	if err := SARIF(&b, r, Options{Root: "/repo"}); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results[0]
	loc := res.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "src/train.py" || loc.Region.StartLine != 4 {
		t.Errorf("primary location %+v, want src/train.py:4", loc)
	}
	var related []string
	for _, l := range res.RelatedLocations {
		related = append(related, l.PhysicalLocation.ArtifactLocation.URI+":"+strconv.Itoa(l.PhysicalLocation.Region.StartLine)+" "+l.Message.Text)
	}
	want := []string{"train.py:5 reported here (asynchronously)", "train.log:912 seen here"}
	if d := cmp.Diff(want, related); d != "" {
		t.Error(d)
	}
}
