package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func TestInplaceBackwardIsReportedNotOrigin(t *testing.T) {
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	e := New(k)
	for _, name := range []string{"s22_plain.log", "s22_anomaly.log"} {
		t.Run(name, func(t *testing.T) {
			fs := explainFiles(t, e, "../../testdata/explain/inplace/"+name)
			if len(fs) != 1 || fs[0].Class != "autograd-inplace" {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if f.Origin != nil {
				t.Errorf("origin %+v: backward() is where the change was noticed, not made", f.Origin)
			}
			if line(f.Reported) != 7 || f.Reported.Code != "loss.backward()" {
				t.Errorf("reported %+v, want the backward() line 7", f.Reported)
			}
			if len(f.Remedies) == 0 || !strings.Contains(f.Remedies[0], "cudadoctor run -- ") || !strings.Contains(f.Remedies[0], "set_detect_anomaly(True)") {
				t.Errorf("first fix does not say how to find the write: %q", f.Remedies)
			}
			n := 0
			for _, r := range f.Remedies {
				n += strings.Count(r, "set_detect_anomaly")
			}
			if n != 1 {
				t.Errorf("anomaly detection advised %d times: %q", n, f.Remedies)
			}
			anomaly := name == "s22_anomaly.log"
			if got := len(f.Related) == 1 && line(f.Related[0].Location) == 3 && strings.Contains(f.Related[0].Message, "SigmoidBackward0"); got != anomaly {
				t.Errorf("related %+v: the anomaly log's forward call (line 3) should be named exactly when present", f.Related)
			}
		})
	}
}
