package diagnose

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// libraryCopyTriggers let the lines of pasted package and file listings that
// name a CUDA library's release reach the parser (pip's nvidia-*-cuXX
// wheels, collect_env's cuDNN file list).
var libraryCopyTriggers = []string{"nvidia-c", "nvidia-n", "nvidia_c", "nvidia_n", "libcudnn.so.", "one of the following"}

// copiesExplain are the surface classes that two releases of one CUDA
// library stand behind: a library's own status (cuDNN, cuBLAS) or a
// failure no class names (a cuSOLVER handle, an XLA runtime error) is what
// a caller built for one release meeting the other's library reports.
var copiesExplain = set("cudnn-error", "cublas-error", "other")

// refineByLibraryCopies: a finding of those classes whose log also lists one
// CUDA library installed in two releases is that mismatch, with the listing
// lines as evidence and the surface kept as the first alternative. A finding
// another refinement already rooted (out of memory, say) is left alone.
func refineByLibraryCopies(k *kb.KB, name string, lines []logparse.Line, texts []string, fs []report.Finding, idx []int) {
	var copies probe.LibraryCopies
	found, read := false, false
	for _, i := range idx {
		f := &fs[i]
		if !copiesExplain[f.Class] {
			continue
		}
		if _, rooted := f.Facts["surface_class"]; rooted {
			continue
		}
		if !read {
			copies, found = probe.FindLibraryCopies(texts)
			read = true
		}
		if !found {
			return
		}
		to, ok := k.Class("library-mismatch")
		if !ok {
			return
		}
		if f.Facts == nil {
			f.Facts = map[string]any{}
		}
		f.Facts["duplicated_library"] = copies.Library
		f.Facts["duplicated_releases"] = strings.Join(copies.Releases, " and ")
		f.Message = reroot(f, to, name, lines[copies.Lines[0]])
		for _, at := range copies.Lines[1:] {
			f.Evidence = append(f.Evidence, report.Evidence{Path: name, Line: lines[at].N, Text: lines[at].Text})
		}
	}
}
