package render

import (
	"io"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// SARIF 2.1.0, the subset code-scanning services read. Rule help comes from
// the same RuleDoc that `cudadoctor rules` prints.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string           `json:"id"`
	Name                 string           `json:"name,omitempty"`
	ShortDescription     *sarifText       `json:"shortDescription,omitempty"`
	FullDescription      *sarifText       `json:"fullDescription,omitempty"`
	Help                 *sarifHelp       `json:"help,omitempty"`
	HelpURI              string           `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifRuleConfig `json:"defaultConfiguration,omitempty"`
	Properties           map[string]any   `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        *int            `json:"ruleIndex,omitempty"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations,omitempty"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Properties       map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int           `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine,omitempty"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
}

func sarifLevel(s report.Severity) string {
	switch s {
	case report.Error:
		return "error"
	case report.Warning:
		return "warning"
	default:
		return "note"
	}
}

func sarifLoc(l *report.Location, msg string, id *int, root string) *sarifLocation {
	if l == nil || l.Path == "" {
		return nil
	}
	loc := &sarifLocation{ID: id, PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: toURI(relPath(root, l.Path))}}}
	if l.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Column, EndLine: l.EndLine}
	}
	if msg != "" {
		loc.Message = &sarifText{Text: msg}
	}
	return loc
}

// toURI keeps relative paths relative (SARIF resolves them against the
// repository root) and uses forward slashes.
func toURI(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	if strings.HasPrefix(p, "/") {
		return "file://" + p
	}
	return p
}

func docText(ri report.RuleDoc) (string, string) {
	var text, md strings.Builder
	text.WriteString(ri.Summary)
	md.WriteString(ri.Summary)
	for _, s := range ri.Sections {
		text.WriteString("\n\n" + s.Title + ":\n" + s.Body)
		md.WriteString("\n\n## " + s.Title + "\n\n" + s.Body)
	}
	if len(ri.References) > 0 {
		text.WriteString("\n\nReferences:\n" + strings.Join(ri.References, "\n"))
		md.WriteString("\n\n## References\n\n- " + strings.Join(ri.References, "\n- "))
	}
	return text.String(), md.String()
}

// SARIF writes a SARIF 2.1.0 log with one run. A finding's location is its
// origin in the user's source when known (so code scanning places it on
// the line), with the log line kept as a related location.
func SARIF(w io.Writer, r *report.Report, opts Options) error {
	driver := sarifDriver{Name: r.Tool.Name, Version: r.Tool.Version, Rules: []sarifRule{}}
	index := map[string]int{}
	for _, ri := range r.Rules {
		text, md := docText(ri)
		sr := sarifRule{ID: ri.ID, Name: ri.Name, ShortDescription: &sarifText{Text: firstNonEmpty(ri.Title, ri.Summary, ri.ID)},
			FullDescription:      &sarifText{Text: firstNonEmpty(ri.Summary, ri.Title, ri.ID)},
			Help:                 &sarifHelp{Text: text, Markdown: md},
			DefaultConfiguration: &sarifRuleConfig{Level: sarifLevel(ri.Severity)},
			Properties:           map[string]any{"kind": string(ri.Kind)}}
		// A reference may carry a note after the address: "URL (what it shows)".
		if len(ri.References) > 0 && strings.HasPrefix(ri.References[0], "http") {
			sr.HelpURI = strings.Fields(ri.References[0])[0]
		}
		index[ri.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sr)
	}
	results := []sarifResult{}
	for _, f := range r.Findings {
		res := sarifResult{RuleID: f.Rule, Level: sarifLevel(f.Severity), Message: sarifText{Text: f.Message}}
		if i, ok := index[f.Rule]; ok {
			i := i
			res.RuleIndex = &i
		}
		primary := primaryLocation(&f)
		if l := sarifLoc(primary, "", nil, opts.Root); l != nil {
			res.Locations = append(res.Locations, *l)
		}
		id := 0
		for _, extra := range []struct {
			l   *report.Location
			msg string
		}{{f.Reported, "reported here (asynchronously)"}, {f.Location, "seen here"}} {
			if extra.l == nil || extra.l == primary {
				continue
			}
			id++
			n := id
			if l := sarifLoc(extra.l, extra.msg, &n, opts.Root); l != nil {
				res.RelatedLocations = append(res.RelatedLocations, *l)
			}
		}
		props := map[string]any{}
		if f.Class != "" {
			props["class"] = f.Class
		}
		if f.Rank != nil {
			props["rank"] = *f.Rank
		}
		if len(f.Remedies) > 0 {
			props["remedies"] = f.Remedies
		}
		if len(props) > 0 {
			res.Properties = props
		}
		results = append(results, res)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	return WriteJSON(w, log)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
