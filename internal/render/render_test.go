package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

func sample() *report.Report {
	r := report.New("explain", "0.1.0")
	r.Rules = []report.RuleInfo{{ID: "device-assert-index", Kind: report.KindClass, Title: "Index out of range", Severity: report.Error, Summary: "An index tensor holds out-of-range values.", Sections: []report.DocSection{{Title: "What to do", Body: "- check the vocabulary size"}}, References: []string{"https://docs.pytorch.org/docs/stable/generated/torch.nn.Embedding.html"}}}
	r.Findings = []report.Finding{{
		Rule: "device-assert-index", Class: "device-assert-index", Alternatives: []string{"illegal-address"}, Severity: report.Error,
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

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.txt", b.Bytes())
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
	var b bytes.Buffer
	if err := Text(&b, report.New("explain", "x"), Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no CUDA or PyTorch failure") {
		t.Errorf("got %q", b.String())
	}
}

func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.json", b.Bytes())
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
