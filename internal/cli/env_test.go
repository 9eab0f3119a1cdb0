package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
)

// On a machine without the NVIDIA driver (CI) env must exit 1 with a
// cuda-unavailable finding; with a driver it must still produce valid JSON.
func TestEnvOnThisMachine(t *testing.T) {
	code, out, stderr := runCLI(t, "", "env", "--no-python", "--format", "json")
	var doc struct {
		Command  string `json:"command"`
		Findings []struct {
			Rule  string `json:"rule"`
			Class string `json:"class"`
		} `json:"findings"`
		Environment map[string]any `json:"environment"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON (%v): %s %s", err, out, stderr)
	}
	if doc.Command != "env" || doc.Environment["checks"] == nil {
		t.Fatalf("unexpected report: %s", out)
	}
	if nvml.Query().Loaded {
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return
	}
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d: %s", code, ExitFindings, stderr)
	}
	if len(doc.Findings) == 0 || doc.Findings[0].Rule != "env/nvidia-driver" || doc.Findings[0].Class != "cuda-unavailable" {
		t.Errorf("first finding %+v, want env/nvidia-driver cuda-unavailable", doc.Findings)
	}
}

func TestEnvUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"env", "extra"},
		{"env", "--python", "/nonexistent/bin/python"},
		{"env", "--no-python", "--python", "python3"},
		{"env", "--python-timeout", "0s"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != ExitUsage || !strings.HasPrefix(stderr, "cudadoctor: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

func TestEnvRulesAreDocumented(t *testing.T) {
	code, out, _ := runCLI(t, "", "rules", "env/driver-version")
	if code != 0 || !strings.Contains(out, "kind: probe") || !strings.Contains(out, "driver-too-old") {
		t.Errorf("exit %d: %s", code, out)
	}
}
