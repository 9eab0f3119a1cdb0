package cli

import (
	"runtime/debug"
	"sync"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
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

func currentBuild() command.Build {
	return command.ReadBuild(Version, Commit, Date, debug.ReadBuildInfo)
}
