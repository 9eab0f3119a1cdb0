package command

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Build is the build stamp: what `cudadoctor version` reports and the
// producer every JSON report names.
type Build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Date     string `json:"date,omitempty"`
	// DateKind says what Date is: "built" (stamped) or "committed" (from git).
	DateKind string `json:"date_kind,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// ReadBuild completes the stamp set at link time (version, commit, date)
// from what Go recorded of the git checkout (read is debug.ReadBuildInfo).
func ReadBuild(version, commit, date string, read func() (*debug.BuildInfo, bool)) Build {
	b := Build{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if b.Date != "" {
		b.DateKind = "built"
	}
	info, ok := read()
	if !ok {
		return b
	}
	if info.GoVersion != "" {
		b.Go = info.GoVersion
	}
	var revision, vcsTime string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			vcsTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Commit == "" {
		b.Commit = revision
	} else if revision != "" && !strings.HasPrefix(revision, b.Commit) && !strings.HasPrefix(b.Commit, revision) {
		// A stamp that disagrees with git's record is not trusted with
		// the modified flag, which belongs to git's revision.
		b.Modified = false
	}
	if b.Date == "" && vcsTime != "" {
		b.Date, b.DateKind = vcsTime, "committed"
	}
	return b
}

// Tool is the producer named in JSON reports.
func (b Build) Tool() report.Tool {
	t := report.Tool{Name: "cudadoctor", Version: b.Version, Commit: b.Commit}
	if b.Modified && t.Commit != "" {
		t.Commit += "-modified"
	}
	return t
}

// Text is the stamp as `cudadoctor version` prints it.
func (b Build) Text() string {
	var s strings.Builder
	fmt.Fprintf(&s, "cudadoctor %s\n", b.Version)
	commit := b.Commit
	if commit == "" {
		commit = "unknown (not built from a git checkout)"
	} else if b.Modified {
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(&s, "commit:  %s\n", commit)
	if b.Date != "" {
		fmt.Fprintf(&s, "%-8s %s\n", b.DateKind+":", b.Date)
	}
	fmt.Fprintf(&s, "go:      %s %s\n", b.Go, b.Platform)
	return s.String()
}
