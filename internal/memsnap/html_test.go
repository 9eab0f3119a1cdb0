package memsnap

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestHTMLIsSelfContainedAndCarriesTheData(t *testing.T) {
	s := loadFixture(t)
	as := Analyze(s)
	rep := report.New("memory", "test")
	rep.Findings = Findings(s, as, "s33.pickle")
	// A hostile string must come out escaped, in the page and in the data.
	rep.Findings = append(rep.Findings, report.Finding{Rule: "x", Severity: report.Info, Message: `</script><script>alert(1)</script>`})
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rep, s, as, "s33.pickle"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a finding's message was not escaped")
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"?(https?:)?//`).FindString(page); m != "" {
		t.Errorf("the page references something outside itself: %s", m)
	}
	for _, tag := range []string{"<link", "<img", "<iframe", "@import", "<script src"} {
		if strings.Contains(page, tag) {
			t.Errorf("the page contains %s", tag)
		}
	}
	if strings.Count(page, "<script") != 2 || strings.Count(page, "</script>") != 2 {
		t.Errorf("want the data block and the drawing script, got %d script tags", strings.Count(page, "<script"))
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="memory-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data block")
	}
	var data []htmlDevice
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatalf("data block is not JSON: %v", err)
	}
	if len(data) != 1 {
		t.Fatalf("%d devices", len(data))
	}
	d := data[0]
	n := len(d.X)
	if n < 100 || n > MaxTimelinePoints+1 || len(d.Allocated) != n || len(d.Reserved) != n {
		t.Fatalf("timeline has %d x, %d allocated, %d reserved points", n, len(d.Allocated), len(d.Reserved))
	}
	if d.Series[0].Label != "s33_memory_snapshot.py:10" || len(d.Series[0].Values) != n {
		t.Errorf("first series %q with %d points", d.Series[0].Label, len(d.Series[0].Values))
	}
	// The stacked series add up to the allocated total at every point.
	for i := 0; i < n; i++ {
		var sum int64
		for _, s := range d.Series {
			sum += s.Values[i]
		}
		if sum != d.Allocated[i] {
			t.Fatalf("point %d: series sum %d, allocated %d", i, sum, d.Allocated[i])
		}
		if d.Reserved[i] < d.Allocated[i] {
			t.Fatalf("point %d: reserved %d below allocated %d", i, d.Reserved[i], d.Allocated[i])
		}
		if i > 0 && d.X[i] < d.X[i-1] {
			t.Fatalf("x goes back at point %d", i)
		}
	}
	if d.PeakBytes != as[0].PeakAllocated || d.Allocated[n-1] != as[0].FinalAllocated {
		t.Errorf("peak %d / end %d, want %d / %d", d.PeakBytes, d.Allocated[n-1], as[0].PeakAllocated, as[0].FinalAllocated)
	}
	if d.OOMX == nil || *d.OOMX < d.X[n-1] || d.OOMBytes != 16<<20 {
		t.Errorf("OOM marker at %v for %d bytes", d.OOMX, d.OOMBytes)
	}
}

func TestHTMLWithoutSnapshot(t *testing.T) {
	rep := report.New("memory", "test")
	rep.Findings = []report.Finding{{Rule: "oom", Severity: report.Error, Message: "the GPU ran out of memory"}}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rep, nil, nil, "train.log"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `id="memory-data">[]</script>`) || !strings.Contains(buf.String(), "the GPU ran out of memory") {
		t.Errorf("page without a timeline:\n%s", buf.String())
	}
}
