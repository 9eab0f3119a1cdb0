package probe

import (
	"slices"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// LibraryCopies is what a pasted environment listing says about one CUDA
// library installed in two releases side by side: pip's nvidia-cudnn-cu11
// next to nvidia-cudnn-cu12 (both wheels unpack into the same
// site-packages/nvidia/cudnn/lib, so whichever came last wins), or
// collect_env's "cuDNN version: Probably one of the following:" naming a
// libcudnn.so.7 and a libcudnn.so.8. Which copy a process loads then
// depends on install order and search paths, and a library of one release
// meeting a caller built for the other fails in that library's own words.
type LibraryCopies struct {
	// Library is the family's name as users know it ("cuDNN", "cuBLAS").
	Library string
	// Releases are the two or more releases, as the listing names them
	// ("cu11", "cu12"; "7", "8" for collect_env's file list).
	Releases []string
	// Lines are the indices of the listing lines that name them.
	Lines []int
}

var (
	// A package listing line: pip list and pip freeze, collect_env's
	// "[pip3] nvidia-cudnn-cu12==9.1.0.70", conda list's pypi rows. The
	// line starts with the package's name and holds only its version and
	// conda's columns after it, so pip's install chatter ("Uninstalling
	// nvidia-cudnn-cu11-8.5.0.96", "Requirement already satisfied:
	// nvidia-...") never counts.
	nvidiaPackageRE = lazyre.New(`(?i)^\s*(?:\[(?:pip3?|conda)\]\s+)?nvidia[-_](cudnn|cublas|cuda[-_]runtime|cuda[-_]nvrtc|cufft|curand|cusolver|cusparse|nccl|nvjitlink)[-_]cu(\d{2})\s*(?:==\s*|\s+)\d[\w.+]*(?:\s+\S+){0,3}\s*$`)
	// A line of collect_env's cuDNN file list: the main library's file
	// with its full release ("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.6.0",
	// "C:\...\bin\cudnn64_7.dll"). Sub-libraries (libcudnn_ops_infer.so.8)
	// repeat the main one's release and are not read.
	cudnnFileRE = lazyre.New(`^\s*\S*?[/\\](?:libcudnn\.so\.(\d+)\.\d+(?:\.\d+)*|cudnn64_(\d+)\.dll)\s*$`)
)

// packageTitles name the pip packages' libraries as users know them.
var packageTitles = map[string]string{"cudnn": "cuDNN", "cublas": "cuBLAS", "cuda-runtime": "the CUDA runtime", "cuda-nvrtc": "NVRTC",
	"cufft": "cuFFT", "curand": "cuRAND", "cusolver": "cuSOLVER", "cusparse": "cuSPARSE", "nccl": "NCCL", "nvjitlink": "nvJitLink"}

// FindLibraryCopies reads pasted listings for a CUDA library installed in
// two releases at once; it returns the first such library, and false when
// every library the listings name comes in one release.
func FindLibraryCopies(lines []string) (LibraryCopies, bool) {
	type seen struct {
		releases []string
		lines    []int
	}
	by := map[string]*seen{}
	var order []string
	note := func(lib, release string, i int) {
		s := by[lib]
		if s == nil {
			s = &seen{}
			by[lib] = s
			order = append(order, lib)
		}
		if !slices.Contains(s.releases, release) {
			s.releases = append(s.releases, release)
			s.lines = append(s.lines, i)
		}
	}
	cudnnList := false // inside collect_env's "Probably one of the following" list
	for i, l := range lines {
		lower := strings.ToLower(l)
		if strings.Contains(lower, "cudnn version") && strings.Contains(lower, "one of the following") {
			cudnnList = true
			continue
		}
		if cudnnList {
			if m := cudnnFileRE.FindStringSubmatch(l); m != nil {
				note("cuDNN", m[1]+m[2], i)
				continue
			}
			if !strings.Contains(lower, "libcudnn") && !strings.Contains(lower, "cudnn64_") {
				cudnnList = false
			}
		}
		if !strings.Contains(lower, "nvidia") {
			continue
		}
		if m := nvidiaPackageRE.FindStringSubmatch(l); m != nil {
			fam := strings.ReplaceAll(strings.ToLower(m[1]), "_", "-")
			note(packageTitles[fam], "cu"+m[2], i)
		}
	}
	for _, lib := range order {
		if s := by[lib]; len(s.releases) > 1 {
			return LibraryCopies{Library: lib, Releases: s.releases, Lines: s.lines}, true
		}
	}
	return LibraryCopies{}, false
}
