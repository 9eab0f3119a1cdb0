// Package corpus loads the collection of real failure reports kept under
// testdata/reports, splits it once and for all into a tune and a test part,
// and scores the explain engine on it, so that accuracy on real input is a
// number measured the same way by the tests and by bench/reports.
package corpus

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Report is one real failure as posted in a public thread.
type Report struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Framework string `json:"framework"`
	Title     string `json:"title"`
	// Surface is the class the error message itself states.
	Surface string `json:"surface"`
	// Root is the cause the thread found (equal to Surface when it found
	// nothing deeper).
	Root string `json:"root"`
	// Established: the thread itself settled the root (a fix that worked,
	// a maintainer's diagnosis).
	Established bool   `json:"established"`
	Evidence    string `json:"evidence"`
	// Log is the error text verbatim as posted, with any environment
	// output the reporter pasted beside it.
	Log string `json:"log"`

	// File and Line say where the report is kept.
	File string `json:"-"`
	Line int    `json:"-"`
}

// Split names the part of the corpus a report belongs to.
type Split string

const (
	Tune Split = "tune"
	Test Split = "test"
)

// NormalizeURL is the form a thread's address is hashed in: lower case, no
// scheme, no leading www., no query, fragment or trailing slash.
func NormalizeURL(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	for _, p := range []string{"https://", "http://"} {
		u = strings.TrimPrefix(u, p)
	}
	u = strings.TrimPrefix(u, "www.")
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.TrimRight(u, "/")
}

// SplitOf is fixed by the thread's address alone, so every report of one
// thread lands on the same side and adding reports never moves old ones:
// about one thread in five is test.
func SplitOf(url string) Split {
	h := sha256.Sum256([]byte(NormalizeURL(url)))
	if binary.BigEndian.Uint32(h[:4])%100 < 20 {
		return Test
	}
	return Tune
}

// BySplit sorts rs into their splits, keeping their order.
func BySplit(rs []Report) map[Split][]Report {
	parts := map[Split][]Report{}
	for _, r := range rs {
		parts[SplitOf(r.URL)] = append(parts[SplitOf(r.URL)], r)
	}
	return parts
}

// Load reads every *.jsonl file of dir, strictly: an unknown field, a
// missing one or a line that is not JSON is an error naming its place.
func Load(dir string) ([]Report, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.jsonl report files", dir)
	}
	sort.Strings(files)
	var out []Report
	// One thread is one report: a second copy would count twice, and its
	// split follows the URL, so copies cannot straddle tune and test.
	at := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		n := 0
		for sc.Scan() {
			n++
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var r Report
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", f, n, err)
			}
			if r.URL == "" || r.Root == "" || r.Surface == "" || strings.TrimSpace(r.Log) == "" {
				return nil, fmt.Errorf("%s:%d: url, surface, root and log are required", f, n)
			}
			r.File, r.Line = filepath.Base(f), n
			key := NormalizeURL(r.URL)
			if prev, dup := at[key]; dup {
				return nil, fmt.Errorf("%s:%d: %s is already in the corpus at %s", f, n, r.URL, prev)
			}
			at[key] = fmt.Sprintf("%s:%d", r.File, n)
			out = append(out, r)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
	}
	return out, nil
}

// Outcome is what the engine said about one report.
type Outcome struct {
	Report *Report
	// Ranked are the distinct classes the engine offers, most likely
	// first: the primary finding's class, its alternatives, then the
	// classes of the other findings.
	Ranked []string
	// Silent: no finding at all.
	Silent bool
	Err    error
}

// Top1 and TopK say whether the root is among the first one or k classes.
func (o Outcome) Top1() bool { return len(o.Ranked) > 0 && o.Ranked[0] == o.Report.Root }

func (o Outcome) TopK(k int) bool {
	for i, c := range o.Ranked {
		if i >= k {
			break
		}
		if c == o.Report.Root {
			return true
		}
	}
	return false
}

// Predicted is the top-1 class, or "(none)".
func (o Outcome) Predicted() string {
	if len(o.Ranked) == 0 {
		return "(none)"
	}
	return o.Ranked[0]
}

// Run explains every report's log with e.
func Run(ctx context.Context, e *diagnose.Engine, rs []Report) []Outcome {
	out := make([]Outcome, len(rs))
	for i := range rs {
		r := &rs[i]
		fs, err := e.Explain(ctx, []diagnose.Input{{Name: "report.log", Reader: strings.NewReader(r.Log)}})
		out[i] = Outcome{Report: r, Err: err, Ranked: ranked(fs), Silent: len(fs) == 0}
	}
	return out
}

func ranked(fs []report.Finding) []string {
	var out []string
	seen := map[string]bool{}
	add := func(c string) {
		if c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for i, f := range fs {
		if i == 0 {
			add(f.Class)
			for _, a := range f.Alternatives {
				add(a)
			}
			continue
		}
		add(f.Class)
	}
	return out
}

// Score is the accuracy of one set of outcomes.
type Score struct {
	N, Top1, Top3, Silent int
	// Deep counts reports whose root differs from their surface, and
	// DeepTop1 those of them the engine got right.
	Deep, DeepTop1 int
	// Recall per root class: hits and totals.
	ClassHits, ClassTotal map[string]int
	// Confusion counts (root, predicted) pairs of top-1 misses.
	Confusion map[[2]string]int
}

// Measure scores outcomes.
func Measure(os []Outcome) Score {
	s := Score{ClassHits: map[string]int{}, ClassTotal: map[string]int{}, Confusion: map[[2]string]int{}}
	for _, o := range os {
		r := o.Report
		s.N++
		s.ClassTotal[r.Root]++
		if o.Silent {
			s.Silent++
		}
		if o.Top1() {
			s.Top1++
			s.ClassHits[r.Root]++
		} else {
			s.Confusion[[2]string{r.Root, o.Predicted()}]++
		}
		if o.TopK(3) {
			s.Top3++
		}
		if r.Surface != r.Root {
			s.Deep++
			if o.Top1() {
				s.DeepTop1++
			}
		}
	}
	return s
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Rates returns top-1, top-3, silent and surface!=root top-1 as fractions.
func (s Score) Rates() (top1, top3, silent, deep float64) {
	return ratio(s.Top1, s.N), ratio(s.Top3, s.N), ratio(s.Silent, s.N), ratio(s.DeepTop1, s.Deep)
}

// Summary is a one-line account of s.
func (s Score) Summary() string {
	t1, t3, si, d := s.Rates()
	return fmt.Sprintf("n=%d top1=%.3f top3=%.3f silent=%.3f (%d) surface!=root top1=%.3f (%d/%d)",
		s.N, t1, t3, si, s.Silent, d, s.DeepTop1, s.Deep)
}

// SurfaceRoots counts, for each surface class, the root classes behind it.
func SurfaceRoots(rs []Report) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, r := range rs {
		if out[r.Surface] == nil {
			out[r.Surface] = map[string]int{}
		}
		out[r.Surface][r.Root]++
	}
	return out
}
