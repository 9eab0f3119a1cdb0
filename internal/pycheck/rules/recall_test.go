package rules

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// The recall corpus (testdata/lint/recall): hazard/clean pairs, each a
// hazard file with one `# want CODE` line and a clean twin that fixes it.
// A pair is found when its rule reports on the want line of the hazard.
// A clean twin must get no warning or error finding from any rule.

const recallDir = "../../../testdata/lint/recall"

type recallPair struct {
	ID     string `json:"id"`
	Rule   string `json:"rule"`
	Split  string `json:"split"`
	Source string `json:"source"`
	Style  string `json:"style"`
}

// recallSplit is the frozen split rule: the first four bytes of
// sha256(id), big-endian, modulo 5; 0 is the test split, the rest tune.
// It must never change: the test split is measured, never tuned on.
func recallSplit(id string) string {
	h := sha256.Sum256([]byte(id))
	if binary.BigEndian.Uint32(h[:4])%5 == 0 {
		return "test"
	}
	return "tune"
}

// recallFloors are the landed recall figures per split, overall ("all")
// and per rule; a change that lowers any of them fails. Raise them when a
// rule improves.
var recallFloors = map[string]map[string]float64{
	// tune: 434/445 since 19 pairs in other styles were added for CD107
	// and CD111 (15 tune, 4 test; 9 of the 19 found when added: 6/15
	// tune, 3/4 test) and these changes: a per-key sum kept in self by a
	// framework step (compute_loss) and a loss that fabric/accelerator
	// .backward(loss) backpropagates in CD107; a method of the module
	// that forward() calls on self, a CPU tensor read with an input's
	// index through its own method (alpha.gather(0, target)), a
	// functional loss of a layer's output (F.mse_loss(self.model(x),
	// noise)) in CD111; named number constants and a mask filled through
	// itself are no mixes. The 430 before are still 423/430.
	// It was 423/430 since a lambda that appends what it is given
	// (record = lambda v: history.append(v)) is followed in CD107; it was
	// 422/430 since 11 more pairs in other styles were added for
	// CD101, CD106, CD107 and CD111 (10 tune, 1 test; 3 of the 11 found
	// when added, 3/10 tune and 0/1 test) and these changes: a local name
	// bound to a slice of a pinned buffer in CD101; a difference with a
	// statistic of the same float16 value (x - x.mean(1)) in CD106; the
	// entries of a dict of losses summed in a loop over its keys inside
	// the training loop in CD107; in-place combinations (masked_fill_),
	// module classes of the file as layers (not when given device=) and
	// their methods returning CPU tensors, a helper's CPU result kept in
	// a plain attribute and indexed with the inputs in CD111 (the 420
	// before are still 413/420). It was 413/420 since 15 pairs in other styles were added for CD101,
	// CD106, CD107 and CD111 (12 tune, 3 test; 4 of the 15 found when
	// added, 3/12 tune and 1/3 test; three CD111 want markers then moved
	// to the line CD111 reports on, the maker) and these changes: a .to()
	// device parameter defaulting to "cpu", a local dict filled slot by
	// slot and handed to torch.save, copy_ into a slice of a pinned
	// buffer read through a numpy view kept in self in CD101; a module
	// converted with .half() computing float16 (a sum that only seeds
	// backward() is not reported) in CD106; an output record whose loss
	// element was backpropagated, appended whole, in CD107; powers,
	// math constants and the factory's own size as CPU arithmetic,
	// torch.einsum/pow of CPU tensors, the loop over a layer list, and
	// a tensor kept in a plain attribute in __init__ in CD111 (the 408
	// before are still 402/408). It was 402/408 since these changes: a **mapping spelt in the file
	// passes its keys (x.to(**opts), torch.zeros(..., **opts)); a
	// generator's yield is its return, followed into the loop over it; a
	// name bound to a lambda or functools.partial is a function (and
	// partial(torch.zeros, ...) a factory, partial(list.append, losses) a
	// bound append); a walrus binds like an assignment; copies unpacked
	// from a generator expression; a float16 name read in a closure. It
	// was 385/408 since 16 pairs in other styles were added for CD101,
	// CD106, CD107 and CD111 (13 tune, 3 test; 4 of the 16 found when
	// added, 3/13 tune and 1/3 test); it was
	// 382/395 since 30 pairs in other styles were added for CD101,
	// CD106, CD107 and CD111 (24 tune, 6 test; 9 of the 30 found when
	// added, 7/24 tune and 2/6 test, and one tune clean twin warned; the
	// want marker of cd111-property-ramp then moved to the forward() line,
	// where CD111 reports a helper's CPU tensor) and these changes: a
	// @property read through self stands for a call of its method in
	// CD101, CD106 and CD111; the end of a with block whose manager's
	// __exit__ synchronises is a wait in CD101; a bound append (record =
	// losses.append), one sum of a tuple assignment, a dict slot read with
	// .get(key, default), a per-key += and an awaited step's loss in
	// CD107 (the 371 before are still 367/371); it was
	// 367/371 since 12 pairs in other styles were added for CD101,
	// CD106, CD107 and CD111 (9 tune, 3 test; 0 of the 12 found when
	// added) and these changes: "yield" back among CD107's anchors (the
	// pre-filter holds 256 now), a host copy iterated (for, zip,
	// enumerate) or given to max/min/sum/sorted/any/all in CD101, a
	// factory reached through a local name, .type() to a CPU tensor type
	// and a comparison with a number in CD111, the dtype of a float16
	// tensor (x.to(w.dtype)), float16 operands on both sides and
	// torch.set_default_dtype(torch.float16) in CD106, a slot a step
	// (losses[i] = loss), insert/appendleft and heapq/bisect pushes in
	// CD107 (the 362 before are 358/362); it was
	// 357/362 since 27 pairs in other styles were added for CD101,
	// CD106, CD107 and CD111 (21 tune, 6 test; 5 of the 27 found when
	// added, 5/21 tune and 0/6 test; 6 tune CD111 pairs then had their
	// want marker moved to the factory line CD111 reports on, which made
	// 3 more of them found without a rule change) and these changes: a
	// True flag constant for non_blocking=, a copy that is one value of a
	// conditional expression (its conditional synchronize counted as the
	// wait of that path); legacy typed constructors, torch.normal(size=),
	// random in-place fills and number arithmetic in CD111; a conditional
	// float16 dtype, .type_as(w) with w float16, x * x in CD106; files
	// that call backward() linted without naming torch, decayed averages,
	// dict.setdefault lists, a caller's list, nonlocal totals and
	// materialised generators of losses (in files the pre-filter passes:
	// its 64 anchors are all taken, "yield" could not be added) in CD107;
	// it was
	// 336/341 since a dict of non_blocking copies is read through a
	// loop over its .items()/.values() (one element walk shared by CD101
	// and CD106); it was 335/341 since a .to(dev) copy counts as device-to-host when
	// every assignment of dev names the CPU; it was 334/341 since CD111 knows torch.from_numpy and as_tensor of
	// evident lists, follows a CPU tensor through in-place arithmetic,
	// comprehensions, meshgrid, pad_sequence and tuple targets into
	// indexing ops, and a helper's return computed from a factory; and
	// CD106 knows *_like factories with a float16 dtype, numpy float16
	// arrays made tensors, device moves and dict comprehensions of float16
	// copies; it was 324/341 since CD107 follows a loss through graph-keeping
	// methods (loss.clone()), a dict output's "loss" element, the terms of
	// a backpropagated sum, the loss element of a step function's tuple,
	// and a list of backpropagated losses stacked after the loop; it was
	// 320/341 since 32 pairs in other styles were added for CD101,
	// CD106, CD107 and CD111 (26 tune, 6 test; 8 of the 26 tune and 1 of
	// the 6 test found when added; the 315 before still 312/315); it was
	// 312/315 since 11 pairs in other styles were added (8 tune, 3
	// test; 2 of the 11 found before) and a dict comprehension of copies,
	// float16 factories, float16 dtype parameter defaults, products of a
	// float16 autocast block read after it, records appended with the
	// loss inside, `out.loss`, criterion calls summed in a data loop, plain
	// functions that append what they are given, LightningModule step
	// methods and the plain functions forward() calls are followed (the
	// 307 before are 304/307); it was 301/307 since a loss returned by a step function of the file
	// after its backward(), extend() with a list or generator of losses,
	// and backward() on a value made of a list are followed (two CD107
	// pairs added, both found); 297/305 since a helper's float16 result and float16 copies
	// joined by torch.stack/cat are followed (two CD106 pairs added, both
	// found); it was 293/303 since 22 pairs in other styles were added (all tune;
	// 6/22 found before the walrus, .add_/+= [x]/.extend([x]), dtype-only
	// .to() and functional-op readings, 15/22 after; the 281 before are
	// still 278/281); it was 278/281, 260/268, and 233/233.
	"tune": {"all": 0.975, "CD101": 0.987, "CD102": 0.957, "CD103": 1, "CD104": 1, "CD105": 1, "CD106": 0.964, "CD107": 0.947,
		"CD108": 1, "CD109": 0.888, "CD110": 1, "CD111": 0.984, "CD112": 1, "CD113": 1},
	// test: 0.776 (66/85) since the 4 test pairs of the 19 above were
	// added (3/4 found when added; the 81 before are still 63/81); it was
	// 0.777 (63/81) since the pair above was added and the
	// changes above (the 80 before are 63/80 now); it was 0.775 (62/80)
	// since the 3 pairs above were added and the
	// changes above (the 77 before are 61/77 now); it was 0.779 (60/77)
	// since the changes before; it was 0.714 (55/77)
	// since three more pairs were added (1/3 found when added); it was 0.729 (54/74) since six more pairs were added (2/6 found
	// when added) and the changes above (one more found); it was
	// 0.749 (51/68) since three more pairs were added (0/3 found
	// when added, none found by the changes above); it was
	// 0.784 (51/65) since six more pairs were added (0/6 found
	// when added; the split's total unchanged by the changes above); it
	// was 0.864 (51/59) since the .to(dev) change above; it was 0.847
	// (50/59) since the CD111 and CD106 changes above; it
	// was 0.813 (48/59) since the CD107 changes above; it was 0.779
	// (46/59) since six more pairs were added (the 53 before
	// still 45/53); it was 0.849 (45/53) since three more pairs were added (the 50 before
	// still 44/50); it was 0.879 (44/50) since six more pairs were added (the 44 before still 40/44); it was 0.909 (40/44), 0.90 (39/43), 0.91 (34/37), 0.94 (29/31), before that 0.96 (24/25).
	"test": {"all": 0.776},
}

// cleanAlarmCeiling is the most clean twins per split that may get a
// warning or error finding. The target, and the floor once reached, is 0.
var cleanAlarmCeiling = map[string]int{"tune": 0, "test": 1}

type recallResult struct {
	pair        recallPair
	found       bool
	cleanAlarms []string // warning/error findings on the clean twin
}

func loadRecallPairs(t testing.TB) []recallPair {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recallDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Pairs []recallPair `json:"pairs"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Pairs
}

func runRecall(t testing.TB, pairs []recallPair) []recallResult {
	t.Helper()
	byCode := map[string]*pycheck.Rule{}
	for _, r := range All() {
		byCode[r.ID] = r
	}
	l := &pycheck.Linter{Rules: All()}
	var out []recallResult
	for _, p := range pairs {
		if byCode[p.Rule] == nil {
			t.Fatalf("%s: unknown rule %s", p.ID, p.Rule)
		}
		dir := filepath.Join(recallDir, "pairs", p.ID)
		hazard, err := os.ReadFile(filepath.Join(dir, "hazard.py"))
		if err != nil {
			t.Fatal(err)
		}
		clean, err := os.ReadFile(filepath.Join(dir, "clean.py"))
		if err != nil {
			t.Fatal(err)
		}
		w := wants(hazard)
		if len(w) != 1 || !strings.HasSuffix(w[0], ":"+p.Rule) {
			t.Fatalf("%s: hazard.py must have exactly one `# want %s` line, has %v", p.ID, p.Rule, w)
		}
		if len(wants(clean)) != 0 {
			t.Fatalf("%s: clean.py has # want lines", p.ID)
		}
		// The pair's other files (helper modules, packages) are the rest of
		// the project both twins are linted with.
		others := pairHelpers(t, dir)
		lint := func(name string, src []byte) []report.Finding {
			fs, err := l.LintSources(append([]pycheck.Source{{Path: filepath.Join(dir, name), Src: src}}, others...)...)
			if err != nil {
				t.Fatal(err)
			}
			return fs
		}
		res := recallResult{pair: p}
		for _, f := range lint("hazard.py", hazard) {
			if f.Location.Path == filepath.Join(dir, "hazard.py") && fmt.Sprintf("%d:%s", f.Location.Line, f.Rule) == w[0] {
				res.found = true
			}
		}
		for _, f := range lint("clean.py", clean) {
			if f.Severity >= report.Warning {
				res.cleanAlarms = append(res.cleanAlarms, fmt.Sprintf("%s:%d:%s %s", filepath.Base(f.Location.Path), f.Location.Line, f.Rule, f.Message))
			}
		}
		out = append(out, res)
	}
	return out
}

// pairHelpers are the Python files of a pair other than its twins.
func pairHelpers(t testing.TB, dir string) []pycheck.Source {
	t.Helper()
	var out []pycheck.Source
	for _, s := range pySources(t, dir) {
		if rel, _ := filepath.Rel(dir, s.Path); rel == "hazard.py" || rel == "clean.py" {
			continue
		}
		if len(wants(s.Src)) != 0 {
			t.Fatalf("%s: only hazard.py may hold a # want line", s.Path)
		}
		out = append(out, s)
	}
	return out
}

// recallTable is recall per rule and overall for one split, as text, with
// the figures by rule ("all" for the split).
func recallTable(results []recallResult, split string) (string, map[string]float64, int) {
	found, total := map[string]int{}, map[string]int{}
	var codes []string
	alarms := 0
	for _, r := range results {
		if r.pair.Split != split {
			continue
		}
		if total[r.pair.Rule] == 0 {
			codes = append(codes, r.pair.Rule)
		}
		total[r.pair.Rule]++
		if r.found {
			found[r.pair.Rule]++
		}
		if len(r.cleanAlarms) > 0 {
			alarms++
		}
	}
	sort.Strings(codes)
	var b strings.Builder
	figures := map[string]float64{}
	nf, nt := 0, 0
	for _, c := range codes {
		figures[c] = float64(found[c]) / float64(total[c])
		fmt.Fprintf(&b, "recall %s %s %d/%d %.2f\n", split, c, found[c], total[c], figures[c])
		nf += found[c]
		nt += total[c]
	}
	overall := 0.0
	if nt > 0 {
		overall = float64(nf) / float64(nt)
	}
	figures["all"] = overall
	fmt.Fprintf(&b, "recall %s all %d/%d %.2f; clean twins with a warning/error finding: %d\n", split, nf, nt, overall, alarms)
	return b.String(), figures, alarms
}

// TestRecallCorpus lints every pair, reports recall per rule on both
// splits, and fails when recall falls below the landed floors or a clean
// twin gets a warning or error. Misses are named for the tune split only:
// the test split is measured by its numbers alone.
func TestRecallCorpus(t *testing.T) {
	pairs := loadRecallPairs(t)
	if len(pairs) < 100 {
		t.Fatalf("recall corpus has %d pairs, want at least 100", len(pairs))
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		if seen[p.ID] {
			t.Fatalf("duplicate pair id %s", p.ID)
		}
		seen[p.ID] = true
		if got := recallSplit(p.ID); p.Split != got {
			t.Fatalf("%s: manifest says split %q, the frozen rule says %q", p.ID, p.Split, got)
		}
		if !strings.HasPrefix(p.Source, "https://") || strings.TrimSpace(p.Style) == "" {
			t.Fatalf("%s: every pair needs a source URL and a style note", p.ID)
		}
	}
	results := runRecall(t, pairs)
	for _, split := range []string{"tune", "test"} {
		table, figures, alarms := recallTable(results, split)
		t.Log("\n" + table)
		for what, floor := range recallFloors[split] {
			if figures[what] < floor {
				t.Errorf("%s split, %s: recall %.2f below the landed floor %.2f", split, what, figures[what], floor)
			}
		}
		if alarms > cleanAlarmCeiling[split] {
			t.Errorf("%s split: %d clean twins got a warning or error finding (at most %d allowed)", split, alarms, cleanAlarmCeiling[split])
		}
	}
	for _, r := range results {
		if r.pair.Split != "tune" {
			continue
		}
		if !r.found {
			t.Logf("tune miss: %s (%s)", r.pair.ID, r.pair.Rule)
		}
		for _, a := range r.cleanAlarms {
			t.Logf("tune clean twin %s: %s", r.pair.ID, a)
		}
	}
}
