package probe

import (
	"fmt"
	"strconv"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// A driver JIT-compiles PTX only up to the PTX ISA version of the CUDA
// release it shipped with. When it is handed newer PTX, its compiler says
// both versions ("ptxas application ptx input, line 9; fatal : Unsupported
// .version 6.3; current version is '6.1'"), and some runtimes log the
// downgrade they try instead ("Patch PTX version from 8.7 to 8.0"). Either
// line is the fact that the driver is older than the toolkit the PTX came
// from, whatever status the failing call then reports (Numba's bare
// "[218] ... UNKNOWN_CUDA_ERROR", CUDA_ERROR_INVALID_PTX).

var ptxVersionRE = lazyre.New(`(?i)\bunsupported \.version (\d{1,2})\.(\d)\s*;\s*current version is '?(\d{1,2})\.(\d)\b|\bpatch PTX version from (\d{1,2})\.(\d) to (\d{1,2})\.(\d)\b`)

// ptxWords gate ptxVersionRE; FromText's first gate (factWords) holds them too.
var ptxWords = []string{"unsupported .version", "patch ptx version from"}

// PTXVersions is a PTX ISA version a pasted log's code needs and the
// newest one the driver's compiler knows, as 10*major+minor.
type PTXVersions struct {
	Wanted int `json:"wanted"`
	Known  int `json:"known"`
}

// readPTXLine records the PTX versions line i names, if any.
func readPTXLine(w lineWords, i int, p *Pasted) {
	if p.Facts.PTX != nil || !w.version || !w.may(ptxWords) {
		return
	}
	m := ptxVersionRE.FindStringSubmatch(w.line)
	if m == nil {
		return
	}
	num := func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return 10*x + y
	}
	p.Facts.PTX = &PTXVersions{Wanted: num(m[1]+m[5], m[2]+m[6]), Known: num(m[3]+m[7], m[4]+m[8])}
	p.Lines["ptx"] = i
}

// ptxISACUDA is the CUDA release that introduced each PTX ISA version
// (PTX ISA reference, release notes), to name the toolkit in a message.
var ptxISACUDA = map[int]string{60: "9.0", 61: "9.1", 62: "9.2", 63: "10.0", 64: "10.1", 65: "10.2",
	70: "11.0", 71: "11.1", 72: "11.2", 73: "11.3", 74: "11.4", 75: "11.5", 76: "11.6", 77: "11.7", 78: "11.8",
	80: "12.0", 81: "12.1", 82: "12.2", 83: "12.3", 84: "12.4", 85: "12.5", 87: "12.8", 88: "12.9", 90: "13.0"}

func isaName(v int) string {
	s := fmt.Sprintf("PTX ISA %d.%d", v/10, v%10)
	if c, ok := ptxISACUDA[v]; ok {
		s += " (CUDA " + c + ")"
	}
	return s
}

// ptxVersionCheck judges a log's statement that its PTX is newer than the
// driver's compiler: the driver is older than the toolkit that built the
// code, so every kernel that must be JIT-compiled fails to load.
var ptxVersionCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/ptx-version", Kind: report.KindProbe, Severity: report.Error,
		Title:   "the driver knows the PTX version of the code it must compile",
		Summary: "Reads the PTX ISA versions that a driver's PTX compiler prints when it rejects code (\"Unsupported .version 6.3; current version is '6.1'\", or a runtime's \"Patch PTX version from 8.7 to 8.0\"). PTX newer than the driver's means the toolkit that generated it is newer than the driver: JIT compilation fails, whatever status the failing load reports.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "driver-too-old"},
			{Title: "Fix", Body: "Upgrade the NVIDIA driver to one of the toolkit's release or later, or generate the code with a toolkit no newer than the driver (for Numba and CuPy: a cudatoolkit matching nvidia-smi's CUDA Version)."},
		},
	},
	Run: runPTXVersion,
}

func runPTXVersion(f *Facts) Result {
	p := f.PTX
	if p == nil {
		return skip("no PTX versions stated")
	}
	if p.Wanted <= p.Known {
		return pass("%s is within the driver's %s", isaName(p.Wanted), isaName(p.Known))
	}
	fd := finding(report.Error,
		fmt.Sprintf("the code is %s, newer than the %s the driver's compiler knows: the driver is older than the toolkit that generated it", isaName(p.Wanted), isaName(p.Known)),
		"Upgrade the NVIDIA driver to one released with (or after) the toolkit that generated the code",
		"Or use a toolkit no newer than the driver supports (nvidia-smi's \"CUDA Version\")")
	fd.Facts["ptx_wanted"] = fmt.Sprintf("%d.%d", p.Wanted/10, p.Wanted%10)
	fd.Facts["ptx_known"] = fmt.Sprintf("%d.%d", p.Known/10, p.Known%10)
	// The finding explains a failure to load or JIT the code, nothing else.
	fd.Facts["ptx_isa"] = true
	return failWith(fd)
}
