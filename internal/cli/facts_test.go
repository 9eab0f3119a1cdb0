package cli

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/oom"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// factProducer names which part of the program wrote a finding's facts:
// the log engine (with the knowledge base's signatures), the Flight
// Recorder analysis, or the memory-snapshot analysis.
func factProducer(rule string) string {
	switch {
	case strings.HasPrefix(rule, "flightrec/"):
		return "flightrec"
	case strings.HasPrefix(rule, "memory/"):
		return "memsnap"
	}
	return "log"
}

// producedFactNames collects, per producer, every fact name the shared
// fixtures make it write, plus the names the knowledge base's signatures
// can capture (counted as the log engine's).
func producedFactNames(t *testing.T) map[string]map[string]bool {
	t.Helper()
	by := map[string]map[string]bool{"log": {}, "flightrec": {}, "memsnap": {}}
	for _, c := range explainSharedFixtures(t) {
		for _, f := range c.findings {
			for k := range f.Facts {
				by[factProducer(f.Rule)][k] = true
			}
		}
	}
	for _, cl := range kb.MustDefault().Classes {
		for _, s := range cl.Signatures {
			for _, n := range regexp.MustCompile(s.Regex).SubexpNames() {
				if n != "" {
					by["log"][n] = true
				}
			}
		}
	}
	// Every number an OOM message can carry, not only those the fixtures
	// print.
	all := oom.Message{Requested: 1, Capacity: 1, Free: 1, ThisProcess: 1, OtherProcesses: 1, Allocated: 1,
		ReservedUnallocated: 1, ReservedTotal: 1, Allowed: 1, PrivatePools: 1, HugeRequest: true, Device: 0}
	for n := range oom.Facts(all) {
		by["log"][n] = true
	}
	return by
}

// One fact, one name: a name two producers write is in the registry of
// shared fact names, every registered name is written, and no retired
// spelling is written by anyone.
func TestFactsNamedOnce(t *testing.T) {
	by := producedFactNames(t)
	writers := map[string][]string{}
	for p, names := range by {
		for n := range names {
			writers[n] = append(writers[n], p)
			if canon, ok := report.RetiredFactNames[n]; ok {
				t.Errorf("%s writes the retired fact name %q; the fact is named %q", p, n, canon)
			}
		}
	}
	for n, ps := range writers {
		sort.Strings(ps)
		if _, ok := report.SharedFacts[n]; len(ps) > 1 && !ok {
			t.Errorf("fact %q is written by %v but is not in report.SharedFacts", n, ps)
		}
	}
	for n := range report.SharedFacts {
		if len(writers[n]) == 0 {
			t.Errorf("report.SharedFacts lists %q, which no producer writes", n)
		}
		if _, ok := report.RetiredFactNames[n]; ok {
			t.Errorf("%q is both shared and retired", n)
		}
	}
	for old, canon := range report.RetiredFactNames {
		if len(writers[canon]) == 0 {
			t.Errorf("retired name %q points at %q, which no producer writes", old, canon)
		}
	}
}
