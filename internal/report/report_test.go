package report

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSeverityRoundTrip(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Error} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v: round trip gave %v, %v", s, back, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity accepted an unknown name")
	}
}

func TestFindingJSONKeepsAlternativesArray(t *testing.T) {
	b, err := json.Marshal(Finding{Rule: "oom", Severity: Error, Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"alternatives":[]`) {
		t.Errorf("alternatives must be an empty array, got %s", s)
	}
	for _, absent := range []string{"origin", "reported", "rank", "facts", "location"} {
		if strings.Contains(s, `"`+absent+`"`) {
			t.Errorf("unknown field %q must be omitted, got %s", absent, s)
		}
	}
}

func TestMaxSeverityAndSort(t *testing.T) {
	r := New("explain", "x")
	if r.MaxSeverity() != SeverityNone {
		t.Fatal("empty report has a severity")
	}
	r.Findings = []Finding{{Rule: "a", Severity: Info}, {Rule: "b", Severity: Error}, {Rule: "c", Severity: Warning}, {Rule: "d", Severity: Error}}
	if r.MaxSeverity() != Error {
		t.Fatal("max severity wrong")
	}
	SortFindings(r.Findings)
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Rule)
	}
	if strings.Join(got, "") != "bdca" {
		t.Errorf("order %v, want b d c a (stable among equals)", got)
	}
}
