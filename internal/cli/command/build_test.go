package command

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadBuild(t *testing.T) {
	fromGit := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.1", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "4c291e1f00d1"}, {Key: "vcs.time", Value: "2026-03-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, true
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		name         string
		commit, date string
		read         func() (*debug.BuildInfo, bool)
		want         string
	}{
		{"git record", "", "", fromGit, "cudadoctor 0.1.0\ncommit:  4c291e1f00d1 (with uncommitted changes)\ncommitted: 2026-03-01T10:00:00Z\ngo:      go1.26.1 linux/amd64\n"},
		{"stamped", "abc", "2026-04-02T00:00:00Z", none, "cudadoctor 0.1.0\ncommit:  abc\nbuilt:   2026-04-02T00:00:00Z\ngo:      GO linux/amd64\n"},
		{"nothing known", "", "", none, "cudadoctor 0.1.0\ncommit:  unknown (not built from a git checkout)\ngo:      GO linux/amd64\n"},
	} {
		b := ReadBuild("0.1.0", c.commit, c.date, c.read)
		b.Platform = "linux/amd64"
		got := b.Text()
		want := strings.Replace(c.want, "GO", b.Go, 1)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: %s", c.name, d)
		}
	}
}
