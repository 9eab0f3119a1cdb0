package rules

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
)

// All is the registry: every rule, sorted by code. Adding a rule means
// adding its file and one line here.
func All() []*pycheck.Rule {
	return []*pycheck.Rule{
		CD101,
		CD102,
		CD103,
		CD104,
		CD105,
		CD106,
		CD107,
		CD108,
		CD109,
		CD110,
		CD111,
		CD112,
		CD113,
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
