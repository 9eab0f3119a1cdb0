package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const oomFragLog = "testdata/gpu/logs/h100/s06_oom_fragmentation.plain.log"

// runIn runs the CLI from the repository root as if the working directory
// were cwd (what SARIF and annotation paths are made relative to).
func runIn(t *testing.T, cwd string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(repoRoot)
	var out, errb bytes.Buffer
	sys := Sys{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return cwd, nil }}
	code := Main(context.Background(), args, sys)
	return code, out.String(), errb.String()
}

// TestExplainSARIFAtTheOrigin: the real H100 log's traceback names
// /workspace/faultlab/scenarios/s06_oom_fragmentation.py:13; run from
// /workspace/faultlab (the checkout), SARIF places the result on
// scenarios/s06_oom_fragmentation.py line 13 and keeps the log line as related.
func TestExplainSARIFAtTheOrigin(t *testing.T) {
	schema := sarifSchema(t) // read before runIn changes directory
	code, out, stderr := runIn(t, "/workspace/faultlab", "explain", "--format", "sarif", oomFragLog)
	if code != ExitFindings {
		t.Fatalf("exit %d (%s)", code, stderr)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("explain's SARIF does not validate: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results[0]
	loc := res.Locations[0].PhysicalLocation
	if res.RuleID != "oom-fragmentation" || loc.ArtifactLocation.URI != "scenarios/s06_oom_fragmentation.py" || loc.Region.StartLine != 13 {
		t.Errorf("result %s at %s:%d, want oom-fragmentation at scenarios/s06_oom_fragmentation.py:13", res.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine)
	}
	if len(res.RelatedLocations) == 0 || res.RelatedLocations[len(res.RelatedLocations)-1].PhysicalLocation.ArtifactLocation.URI != oomFragLog {
		t.Errorf("the log line is not a related location: %+v", res.RelatedLocations)
	}
}

func TestExplainGitHubAnnotations(t *testing.T) {
	code, out, _ := runIn(t, "/workspace/faultlab", "explain", "--format", "github", oomFragLog)
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := "::error file=scenarios/s06_oom_fragmentation.py,line=13,title=cudadoctor oom-fragmentation::62.92 GiB is reserved but unallocated"
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], "%0AFix 1: Start the process with PYTORCH_CUDA_ALLOC_CONF=expandable_segments") {
		t.Errorf("annotations:\n%s\nwant one starting %q with the first fix", out, want)
	}
}

// TestExplainMarkdown: a diagnosis to paste into an issue: the headline,
// the origin with its code, the evidence folded, the fixes numbered.
func TestExplainMarkdown(t *testing.T) {
	code, out, _ := runFake(t, "", false, nil, "explain", "--format", "markdown", oomFragLog)
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"### error: 62.92 GiB is reserved but unallocated: fragmentation (the request was 24.00 GiB)\n",
		"- **Class:** `oom-fragmentation`\n",
		"- **Origin:** `/workspace/faultlab/scenarios/s06_oom_fragmentation.py:13` in `<module>`: `big = torch.empty(24 << 30, dtype=torch.uint8, device=\"cuda\")  # FAULT`\n",
		"<details>\n<summary>Evidence (",
		"```text\n" + oomFragLog + ":6: ",
		"</details>\n\n**Fixes**\n\n1. Start the process with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}
