package diagnose

import (
	"context"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func TestSuggestedCommandsQuoteLogPaths(t *testing.T) {
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	log := "Traceback (most recent call last):\n" +
		"  File \"/tmp/x$(touch PWN).py\", line 4, in <module>\n" +
		"    y = x.sum().item()\n" +
		"RuntimeError: CUDA error: an illegal memory access was encountered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	fs, err := New(k).Explain(context.Background(), []Input{{Name: "s.log", Reader: strings.NewReader(log)}})
	if err != nil || len(fs) == 0 {
		t.Fatalf("findings %v, err %v", fs, err)
	}
	quoted := 0
	for _, r := range fs[0].Remedies {
		// Commands are the `quoted` parts; prose may name the file as is.
		parts := strings.Split(r, "`")
		for i := 1; i < len(parts); i += 2 {
			cmd := parts[i]
			if !strings.Contains(cmd, "$(touch PWN)") {
				continue
			}
			if strings.Contains(strings.ReplaceAll(cmd, `'/tmp/x$(touch PWN).py'`, ""), "$(touch") {
				t.Errorf("unquoted path in the command %q", cmd)
			}
			quoted++
		}
	}
	if quoted == 0 {
		t.Errorf("no remedy names the script: %q", fs[0].Remedies)
	}
}
