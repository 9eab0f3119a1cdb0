package report

import (
	"bytes"
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

func TestFindingJSONKeepsHTMLCharacters(t *testing.T) {
	// Renderers encode with HTML escaping off (json.Marshal itself always
	// escapes); the finding's own encoding must not escape either.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Finding{Rule: "x", Severity: Error, Message: "a < b && c > d", Origin: &Location{Function: "<module>"}}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, `"a < b && c > d"`) || !strings.Contains(s, `"<module>"`) {
		t.Errorf("HTML characters were escaped: %s", s)
	}
}
