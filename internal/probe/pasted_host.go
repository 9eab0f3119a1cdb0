package probe

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// A report that runs in a container often names two CUDA versions on one
// line: the host's, which is what the driver there supports ("物理机cuda版本
// 11.2", "host CUDA 12.2", "nvidia-smi shows CUDA 12.0"), and the one
// inside the container or environment that the failing build carries
// ("docker内看cuda 版本是 10.2"). The build's is the one the checks need,
// so a CUDA version stated in a clause about the host is passed over for
// the next one the line states.

var (
	// A clause about the host machine or its driver's report.
	hostClauseRE = lazyre.New(`(?i)\b(?:host|bare[- ]?metal|nvidia-smi)\b|物理机|宿主机|主机`)
	// A clause about the container or environment the build runs in.
	containerClauseRE = lazyre.New(`(?i)\b(?:docker|container|image|conda|venv|env(?:ironment)?)\b|容器|镜像|环境|docker`)
)

// clauseBreaks end a clause: a comma, semicolon or full stop, in ASCII or
// CJK punctuation.
const clauseBreaks = ",;，；。、"

// hostClause: the clause of l that ends at byte at speaks of the host and
// not of a container.
func hostClause(l string, at int) bool {
	start := strings.LastIndexAny(l[:at], clauseBreaks)
	if start < 0 {
		start = 0
	}
	pre := l[start:at]
	return hostClauseRE.MatchString(pre) && !containerClauseRE.MatchString(pre)
}

// buildMatch is re's first match on l outside a clause about the host,
// as FindStringSubmatch returns it; nil when there is none.
func buildMatch(re *lazyre.Regexp, l string) []string {
	for _, ix := range re.FindAllStringSubmatchIndex(l, -1) {
		if hostClause(l, ix[0]) {
			continue
		}
		m := make([]string, len(ix)/2)
		for i := range m {
			if ix[2*i] >= 0 {
				m[i] = l[ix[2*i]:ix[2*i+1]]
			}
		}
		return m
	}
	return nil
}
