package cli

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
)

// TestReportsNameTheCommit: a stamped commit reaches the JSON report's tool.
func TestReportsNameTheCommit(t *testing.T) {
	b := command.ReadBuild(Version, "0123456789ab", "", debug.ReadBuildInfo)
	_, out, _ := runBuild(t, b, "epoch 1 done\n", "explain", "--format", "json", "-")
	var rep struct {
		Tool map[string]string `json:"tool"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tool["name"] != "cudadoctor" || rep.Tool["version"] != Version || !strings.HasPrefix(rep.Tool["commit"], "0123456789ab") {
		t.Errorf("tool %v", rep.Tool)
	}
	code, out, _ := runBuild(t, b, "", "version", "--format", "json")
	if code != 0 || !strings.Contains(out, `"commit": "0123456789ab"`) || !strings.Contains(out, `"go": "go1.`) {
		t.Errorf("version --format json: exit %d, %s", code, out)
	}
}
