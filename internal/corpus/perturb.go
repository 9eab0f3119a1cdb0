package corpus

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
)

// A Perturbation rewrites a report's log the way logs reach us from other
// places than an issue thread: through a scheduler, a terminal that wraps,
// a logging stack, another operating system. The cause is unchanged, so
// the diagnosis must be too; scoring the corpus under each one measures
// how much of our accuracy rests on the layout the reporters happened to
// paste rather than on the words.
type Perturbation struct {
	Name string
	// Doc says what real setting the rewrite stands for.
	Doc   string
	Apply func(log string, rng *rand.Rand) string
}

// Perturbations are the rewrites scored by bench/reports -perturb and held
// to their floors by the tests.
var Perturbations = []Perturbation{
	{"srun-label", "every line behind `srun --label`'s task number, lines of a second task between them", srunLabel},
	{"rank-prefix", "every line behind torchrun's [rankN]: prefix, inside srun --label", rankPrefix},
	{"hard-wrap", "a terminal that breaks lines at its width (80 to 143 columns), mid-word", hardWrap},
	{"word-wrap", "a paste re-flowed at 72 columns on word boundaries", wordWrap},
	{"timestamps", "every line behind a log collector's timestamp and stream tag", timestamps},
	{"crlf", "Windows line ends", func(s string, _ *rand.Rand) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
	{"progress", "a carriage-return progress bar before the failure, its last frame on the failure's first line", progress},
	{"noise", "a long healthy head of training output, and logger lines between the log's paragraphs", noise},
	{"slurm", "the Slurm step messages that follow a failed task", slurmTail},
	{"conda", "site-packages under a conda environment in the user's home", conda},
	{"ansi", "colour escapes from a terminal capture", ansi},
	{"rich", "Python tracebacks drawn in a box by rich (accelerate, Typer, Lightning CLIs)", richTracebacks},
	{"ranks", "the same failure printed by two ranks of one job, their lines interleaved behind [rankN]: prefixes", twoRanks},
	{"compose", "every line behind docker compose's service prefix", func(s string, _ *rand.Rand) string {
		var b strings.Builder
		for _, l := range lines(s) {
			b.WriteString("trainer-1  | " + l + "\n")
		}
		return b.String()
	}},
}

// PerturbationNamed finds a rewrite by name.
func PerturbationNamed(name string) (Perturbation, error) {
	for _, p := range Perturbations {
		if p.Name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range Perturbations {
		names = append(names, p.Name)
	}
	return Perturbation{}, fmt.Errorf("no perturbation %q (have %s)", name, strings.Join(names, ", "))
}

// Perturb returns copies of rs with p applied to each log, seeded by the
// report's address so that a run is repeatable.
func Perturb(rs []Report, p Perturbation) []Report {
	out := make([]Report, len(rs))
	for i, r := range rs {
		h := fnv.New64a()
		h.Write([]byte(p.Name + "\x00" + r.URL))
		rng := rand.New(rand.NewPCG(h.Sum64(), uint64(r.Line)))
		r.Log = p.Apply(r.Log, rng)
		out[i] = r
	}
	return out
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

func srunLabel(s string, rng *rand.Rand) string {
	task := rng.IntN(8)
	other := (task + 1 + rng.IntN(7)) % 8
	var b strings.Builder
	for i, l := range lines(s) {
		fmt.Fprintf(&b, "%d: %s\n", task, l)
		if i%7 == 3 {
			fmt.Fprintf(&b, "%d: %s\n", other, healthyLine(rng))
		}
	}
	return b.String()
}

func rankPrefix(s string, rng *rand.Rand) string {
	rank := rng.IntN(8)
	var b strings.Builder
	for _, l := range lines(s) {
		// A line torchrun already prefixed gets only srun's label: no
		// launcher writes one rank's prefix in front of another's.
		if rankPrefixed(l) {
			fmt.Fprintf(&b, "%d: %s\n", rank, l)
			continue
		}
		fmt.Fprintf(&b, "%d: [rank%d]:%s\n", rank, rank, l)
	}
	return b.String()
}

// rankPrefixed is a line behind a launcher's own bracketed prefix
// (torchrun's "[rank1]:", mpirun's "[1,0]<stderr>:"), as the logs of
// multi-rank jobs in the corpus already are; the parser's reading of rank
// prefixes decides it.
func rankPrefixed(l string) bool {
	r, _ := logparse.StripRank(l)
	return r >= 0 && strings.HasPrefix(strings.TrimSpace(l), "[")
}

// wrapWidths are terminal widths: the common defaults, and two a resized
// window or a tmux pane gives.
var wrapWidths = []int{80, 80, 100, 120, 94, 143}

func hardWrap(s string, rng *rand.Rand) string {
	width := wrapWidths[rng.IntN(len(wrapWidths))]
	var b strings.Builder
	for _, l := range lines(s) {
		r := []rune(l)
		for len(r) > width {
			b.WriteString(string(r[:width]))
			b.WriteByte('\n')
			r = r[width:]
		}
		b.WriteString(string(r))
		b.WriteByte('\n')
	}
	return b.String()
}

func wordWrap(s string, _ *rand.Rand) string {
	const width = 72
	var b strings.Builder
	for _, l := range lines(s) {
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		words := strings.Fields(l)
		if len(words) == 0 {
			b.WriteByte('\n')
			continue
		}
		col := 0
		b.WriteString(l[:indent])
		col = indent
		for i, w := range words {
			if i > 0 && col+1+len(w) > width {
				b.WriteByte('\n')
				col = 0
			} else if i > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += len(w)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func timestamps(s string, rng *rand.Rand) string {
	sec := rng.IntN(3600)
	var b strings.Builder
	for i, l := range lines(s) {
		ms := i * 7
		fmt.Fprintf(&b, "2025-03-14T09:%02d:%02d.%06dZ stderr F %s\n", sec/60, sec%60, ms, l)
	}
	return b.String()
}

func progress(s string, rng *rand.Rand) string {
	var b strings.Builder
	total := 100 + rng.IntN(900)
	at := rng.IntN(total)
	for e := 0; e < 2; e++ {
		for i := 0; i <= total; i += total / 10 {
			n := i
			if e == 1 {
				n = min(i, at)
			}
			fmt.Fprintf(&b, "\rEpoch %d: %3d%%|%-10s| %d/%d [00:%02d<00:%02d, 3.21it/s, loss=0.5%02d]",
				e, n*100/total, strings.Repeat("█", n*10/total), n, total, n%60, (total-n)%60, n%100)
			if e == 1 && n == at {
				break
			}
		}
		if e == 0 {
			b.WriteByte('\n')
		}
	}
	// tqdm leaves the cursor at the end of its last frame: what the failing
	// process prints next starts on that same line.
	b.WriteString(s)
	return b.String()
}

var healthy = []string{
	"INFO:__main__:step %d loss=%.4f lr=3.0e-04",
	"[%d/5000] train_loss: %.4f",
	"wandb: logging step %d, loss %.3f",
	"2025-03-14 09:12:%02d,417 - trainer - INFO - tokens/s %.1f",
}

func healthyLine(rng *rand.Rand) string {
	f := healthy[rng.IntN(len(healthy))]
	if strings.HasPrefix(f, "2025") {
		return fmt.Sprintf(f, rng.IntN(60), 1e4+rng.Float64()*1e4)
	}
	return fmt.Sprintf(f, rng.IntN(5000), 1+rng.Float64())
}

func noise(s string, rng *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString(healthyLine(rng))
		b.WriteByte('\n')
	}
	for _, l := range lines(s) {
		if strings.TrimSpace(l) == "" {
			b.WriteString(healthyLine(rng))
			b.WriteByte('\n')
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func slurmTail(s string, rng *rand.Rand) string {
	job := 100000 + rng.IntN(900000)
	node := fmt.Sprintf("gpu-node%03d", rng.IntN(200))
	var b strings.Builder
	b.WriteString(strings.TrimRight(s, "\n"))
	fmt.Fprintf(&b, "\nsrun: error: %s: task %d: Exited with exit code 1\n", node, rng.IntN(8))
	fmt.Fprintf(&b, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0\n", job)
	fmt.Fprintf(&b, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT 2025-03-14T09:15:02 ***\n", job, node)
	return b.String()
}

var condaReplacer = strings.NewReplacer(
	"/usr/local/lib/python", "/home/ana/miniconda3/envs/train/lib/python",
	"/usr/lib/python", "/home/ana/miniconda3/envs/train/lib/python",
	"dist-packages", "site-packages",
)

func conda(s string, _ *rand.Rand) string { return condaReplacer.Replace(s) }

var ansiReplacer = strings.NewReplacer(
	"Traceback", "\x1b[31mTraceback",
	"Error:", "Error:\x1b[0m",
	"File \"", "File \x1b[32m\"",
	"\", line", "\"\x1b[0m, line",
)

func ansi(s string, _ *rand.Rand) string { return ansiReplacer.Replace(s) }

var frameLineRE = regexp.MustCompile(`^(\s*)File "([^"]+)", line (\d+), in (.+)$`)

// richTracebacks redraws every CPython traceback the way rich prints one:
// the header in the box's top border, each frame as "PATH:LINE in FUNC"
// (broken over box lines when wider than the box) with its code line
// marked ❱, and the exception line under the box.
func richTracebacks(s string, _ *rand.Rand) string {
	const width = 100 // inner width
	ls := lines(s)
	var b strings.Builder
	row := func(text string) {
		pad := width - 2 - utf8.RuneCountInString(text)
		if pad < 0 {
			pad = 0
		}
		b.WriteString("│ " + text + strings.Repeat(" ", pad) + " │\n")
	}
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		at := strings.Index(l, "Traceback (most recent call last):")
		if at < 0 {
			b.WriteString(l + "\n")
			continue
		}
		b.WriteString(l[:at])
		title := " Traceback (most recent call last) "
		side := (width - utf8.RuneCountInString(title)) / 2
		b.WriteString("╭" + strings.Repeat("─", side) + title + strings.Repeat("─", width-side-utf8.RuneCountInString(title)) + "╮\n")
		for i+1 < len(ls) {
			m := frameLineRE.FindStringSubmatch(ls[i+1])
			if m == nil {
				break
			}
			i++
			head := []rune(m[2] + ":" + m[3] + " in " + m[4])
			for len(head) > width-2 {
				row(string(head[:width-2]))
				head = head[width-2:]
			}
			row(string(head))
			row("")
			if i+1 < len(ls) && strings.HasPrefix(ls[i+1], m[1]+"  ") && !frameLineRE.MatchString(ls[i+1]) {
				i++
				code := []rune(fmt.Sprintf("❱ %3s │ %s", m[3], strings.TrimSpace(ls[i])))
				if len(code) > width-2 {
					code = code[:width-2]
				}
				row(string(code))
				row("")
			}
		}
		b.WriteString("╰" + strings.Repeat("─", width) + "╯\n")
	}
	return b.String()
}

// twoRanks is a job whose ranks all fail alike (an out-of-memory on every
// card, a bad batch on each): their copies of the log interleave in the
// launcher's output, line by line in varying runs.
func twoRanks(s string, rng *rand.Rand) string {
	ls := lines(s)
	// A log whose lines already carry rank prefixes is interleaved ranks
	// as it stands; a second copy behind [rank1]: would nest prefixes no
	// launcher writes.
	if slices.ContainsFunc(ls, rankPrefixed) {
		return s
	}
	var b strings.Builder
	i, j := 0, 0
	for i < len(ls) || j < len(ls) {
		for k := rng.IntN(3) + 1; k > 0 && i < len(ls); k-- {
			fmt.Fprintf(&b, "[rank0]:%s\n", ls[i])
			i++
		}
		for k := rng.IntN(3) + 1; k > 0 && j < len(ls); k-- {
			fmt.Fprintf(&b, "[rank1]:%s\n", ls[j])
			j++
		}
	}
	return b.String()
}
