package probe

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var libraryMismatchCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/library-mismatch", Kind: report.KindProbe, Severity: report.Error,
		Title:   "torch uses the CUDA libraries its wheel ships",
		Summary: "Reads which cuDNN, NCCL, cuBLAS, cudart... files are mapped into the Python process after CUDA initialisation and compares them with the copies the torch wheel installed. A system copy loaded instead (through LD_PRELOAD, LD_LIBRARY_PATH or an earlier import) gives version errors, missing symbols or wrong results.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "library-mismatch"},
			{Title: "Fix", Body: "Remove the system copy from LD_PRELOAD/LD_LIBRARY_PATH so torch loads its own."},
		},
	},
	Run: runLibraryMismatch,
}

// coreFamilies are the libraries torch's own CUDA code links and checks.
var coreFamilies = map[string]bool{"cudnn": true, "nccl": true, "cudart": true, "cublas": true, "cublasLt": true}

func familyTitle(fam string) string {
	switch fam {
	case "cudnn":
		return "cuDNN"
	case "nccl":
		return "NCCL"
	case "cudart":
		return "cudart"
	case "cublas":
		return "cuBLAS"
	case "cublasLt":
		return "cuBLASLt"
	}
	return "lib" + fam
}

func runLibraryMismatch(f *Facts) Result {
	if f.Python == nil || f.Python.Torch == nil || len(f.Python.Libraries) == 0 {
		return staticLibraryCheck(f)
	}
	wheel := map[string]WheelLibrary{} // by soname: libcudnn.so.9
	for _, w := range f.Python.WheelLibs {
		if _, dup := wheel[sonameKey(w.Name)]; !dup {
			wheel[sonameKey(w.Name)] = w
		}
	}
	var fs []report.Finding
	byFamily := map[string][]LoadedLibrary{}
	for _, l := range f.Python.Libraries {
		if LibraryFamily(l.Name) == "" {
			continue
		}
		if isMainLibrary(l.Name, l.Family) {
			byFamily[l.Family] = append(byFamily[l.Family], l)
		}
		w, shipped := wheel[sonameKey(l.Name)]
		if l.Wheel || !shipped || !isMainLibrary(l.Name, l.Family) {
			continue
		}
		what := familyTitle(l.Family)
		ver := ""
		if l.Version != "" {
			ver = " " + l.Version
		}
		msg := fmt.Sprintf("torch loaded %s%s from %s, not the copy its wheel ships (%s)", what, ver, l.RealPath, w.Path)
		// The libraries torch links directly break it outright; the others
		// (nvrtc, cuFFT...) only where their version differs, so they warn.
		sev := report.Warning
		if coreFamilies[l.Family] {
			sev = report.Error
		}
		fd := finding(sev, msg)
		fd.Evidence = []report.Evidence{ev("mapped: " + l.RealPath), ev("wheel: " + w.Path)}
		fd.Facts["library"] = l.Name
		if l.Version != "" {
			fd.Facts["loaded_version"] = l.Version
		}
		if l.Family == "cudnn" {
			if t := f.Python.Torch; t.CuDNNError != "" {
				fd.Evidence = append(fd.Evidence, ev(firstLine(t.CuDNNError)))
			} else if t.CuDNNCompile != "" {
				fd.Evidence = append(fd.Evidence, ev("torch was compiled against cuDNN "+t.CuDNNCompile))
			}
		}
		fd.Remedies = shadowRemedies(f, l)
		fs = append(fs, fd)
	}
	// Two copies of one library mapped at once.
	for fam, libs := range byFamily {
		paths := map[string]bool{}
		for _, l := range libs {
			paths[l.RealPath] = true
		}
		if len(paths) > 1 {
			var ps []string
			for p := range paths {
				ps = append(ps, p)
			}
			sort.Strings(ps)
			fd := finding(report.Error, fmt.Sprintf("two copies of %s are loaded in one process: %s", familyTitle(fam), strings.Join(ps, ", ")),
				"Make every package load the same copy: remove the extra one from LD_PRELOAD/LD_LIBRARY_PATH, or align the package versions")
			fs = append(fs, fd)
		}
	}
	if t := f.Python.Torch; t.CuDNNError != "" && len(fs) == 0 {
		fd := finding(report.Error, "torch's cuDNN check failed: "+firstLine(t.CuDNNError),
			"Reinstall the wheel's cuDNN: pip install --force-reinstall torch (same version and index URL), and remove other cuDNN copies from LD_LIBRARY_PATH")
		fd.Evidence = []report.Evidence{ev(t.CuDNNError)}
		fs = append(fs, fd)
	}
	if len(fs) > 0 {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Message < fs[j].Message })
		return failWith(fs...)
	}
	// Pass: say which copies are used, and which system copies lie unused.
	var used []string
	for _, fam := range []string{"cudnn", "nccl", "cublas", "cudart"} {
		for _, l := range byFamily[fam] {
			if l.Version != "" {
				used = append(used, familyTitle(fam)+" "+l.Version)
				break
			}
		}
	}
	msg := "torch uses its own libraries"
	if len(used) > 0 {
		msg += ": " + strings.Join(used, ", ")
	}
	if others := unusedSystemCopies(f, byFamily); len(others) > 0 {
		msg += "; also installed, unused: " + strings.Join(others, ", ")
	}
	return pass("%s", msg)
}

// unusedSystemCopies lists system copies of a family torch loads from its wheel.
func unusedSystemCopies(f *Facts, used map[string][]LoadedLibrary) []string {
	var out []string
	seen := map[string]bool{}
	for _, fam := range []string{"cudnn", "nccl", "cudart", "cublas"} {
		for _, s := range f.SystemLibs {
			if s.Family != fam || len(used[fam]) == 0 || seen[fam+s.Version] {
				continue
			}
			seen[fam+s.Version] = true
			out = append(out, familyTitle(fam)+" "+s.Version)
		}
	}
	return out
}

func shadowRemedies(f *Facts, l LoadedLibrary) []string {
	var rs []string
	if pre := f.Env["LD_PRELOAD"]; pre != "" {
		for _, p := range strings.FieldsFunc(pre, func(r rune) bool { return r == ':' || r == ' ' }) {
			if sonameKey(filepath.Base(p)) == sonameKey(l.Name) || samePath(f, p, l.RealPath) {
				rs = append(rs, fmt.Sprintf("LD_PRELOAD=%s forces this copy: unset LD_PRELOAD (or drop %s from it)", pre, p))
			}
		}
	}
	if lp := f.Env["LD_LIBRARY_PATH"]; lp != "" {
		var keep []string
		var hit string
		for _, d := range filepath.SplitList(lp) {
			if d != "" && (d == filepath.Dir(l.Path) || d == filepath.Dir(l.RealPath)) {
				hit = d
				continue
			}
			keep = append(keep, d)
		}
		if hit != "" {
			rs = append(rs, fmt.Sprintf("LD_LIBRARY_PATH puts %s first: export LD_LIBRARY_PATH=%s", hit, strings.Join(keep, ":")))
		}
	}
	if len(rs) == 0 {
		rs = append(rs, "Find what loads it first: LD_DEBUG=libs "+pyOr(f)+" -c 'import torch' 2>&1 | grep "+l.Name)
	}
	if l.Family == "cudnn" {
		rs = append(rs, "Check with: "+pyOr(f)+" -c 'import torch; print(torch.backends.cudnn.version())'")
	}
	return rs
}

func samePath(f *Facts, a, b string) bool {
	for _, s := range f.SystemLibs {
		if s.Path == a && s.RealPath == b {
			return true
		}
	}
	return a == b
}

func pyOr(f *Facts) string {
	if f.Python != nil && f.Python.Interpreter != "" {
		return f.Python.Interpreter
	}
	return "python"
}

// staticLibraryCheck judges LD_PRELOAD without the probe: preloading a CUDA
// library overrides the wheel's copy for every process.
func staticLibraryCheck(f *Facts) Result {
	var fs []report.Finding
	for _, s := range f.SystemLibs {
		if s.Via != "LD_PRELOAD" {
			continue
		}
		fd := finding(report.Warning, fmt.Sprintf("LD_PRELOAD forces %s (%s) into every process, overriding the copy a torch wheel ships", familyTitle(s.Family), s.Path),
			"Unless you mean to override torch's own copy: unset LD_PRELOAD")
		fd.Evidence = []report.Evidence{ev("LD_PRELOAD=" + f.Env["LD_PRELOAD"])}
		fs = append(fs, fd)
	}
	if len(fs) > 0 {
		return failWith(fs...)
	}
	if f.Python == nil {
		return skip("torch not probed: loaded libraries unknown")
	}
	return skip("torch not probed successfully: loaded libraries unknown")
}
