package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// The build stamp. Release builds set all three with
//
//	-ldflags "-X github.com/cudadoctor/cudadoctor/internal/cli.Version=0.1.0
//	          -X github.com/cudadoctor/cudadoctor/internal/cli.Commit=$(git rev-parse HEAD)
//	          -X github.com/cudadoctor/cudadoctor/internal/cli.Date=$(date -u +%FT%TZ)"
//
// (packaging/build.sh does). A plain `go build` in a checkout leaves Commit
// and Date empty, and they come from the revision and commit time that Go
// records from git.
var (
	Version = "0.1.0"
	Commit  = ""
	Date    = ""
)

var stampOnce sync.Once

// build is what `cudadoctor version` reports.
type build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Date     string `json:"date,omitempty"`
	// DateKind says what Date is: "built" (stamped) or "committed" (from git).
	DateKind string `json:"date_kind,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func currentBuild() build {
	return readBuild(debug.ReadBuildInfo)
}

func readBuild(read func() (*debug.BuildInfo, bool)) build {
	b := build{Version: Version, Commit: Commit, Date: Date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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

// tool is the producer named in JSON reports.
func (b build) tool() report.Tool {
	t := report.Tool{Name: "cudadoctor", Version: b.Version, Commit: b.Commit}
	if b.Modified && t.Commit != "" {
		t.Commit += "-modified"
	}
	return t
}

func (b build) text() string {
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

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b := currentBuild()
			switch g.format {
			case "text":
				_, err := fmt.Fprint(g.sys.Stdout, b.text())
				return err
			case "json":
				return writeJSON(g.sys.Stdout, b)
			}
			return usageErrorf("version has no --format %s: it prints text or json", g.format)
		},
	}
}
