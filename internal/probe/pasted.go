package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Pasted is what a log says about the machine it came from: users paste
// `python -m torch.utils.collect_env`, nvidia-smi tables, pip lists and
// torch.__version__ next to an error. FromText reads them into the same
// Facts that `env` gathers on a live machine, so the same checks judge them;
// Lines remembers where each fact was read, to quote it as evidence.
type Pasted struct {
	Facts *Facts
	// Lines maps a fact ("cuda", "driver", "memory") to
	// the index of the line it was read from.
	Lines map[string]int
	// Tool holds the facts of Lines that a tool printed (see toolOutput);
	// the others are the user's own statements.
	Tool map[string]bool
}

var (
	// "PyTorch version: 1.7.1+cu101", "torch==2.0.1", "torch 1.13.1+cu117",
	// "pytorch1.7.0-cu110", "torch version: 2.1.0".
	// "pytorch is 0.4.1.post2", "pytorch1.3" (no CUDA tag).
	torchVersionRE = lazyre.New(`(?i)\b(?:py)?torch(?:\s+version)?\s*(?:[:=]=?|\s+is\s+|\s)\s*['"]?v?(\d+\.\d+(?:\.\d+)?)(?:[+-](cu\d{2,3}|cpu))?\b|\bpytorch(\d+\.\d+(?:\.\d+)?)(?:[+-](cu\d{2,3}))?\b`)
	// A bare version with a CUDA tag, as torch.__version__ prints it.
	tagVersionRE = lazyre.New(`(?:^|[\s'"(])([12]\.\d+\.\d+)\+(cu\d{2,3})\b`)
	// collect_env's "CUDA used to build PyTorch: 11.7" and torch.version.cuda.
	buildCUDARE   = lazyre.New(`(?i)CUDA used to build PyTorch:\s*(\d+\.\d+)|torch\.version\.cuda\W+(\d+\.\d+)`)
	driverRE      = lazyre.New(`(?i)driver version\s*:?\s*(\d{3}\.\d+(?:\.\d+)?)`)
	smiCUDARE     = lazyre.New(`(?i)\bCUDA Version:\s*(\d+)\.(\d+)`)
	smiMemoryRE   = lazyre.New(`(\d+)\s?MiB\s*/\s*(\d+)\s?MiB`)
	gpuNameRE     = lazyre.New(`(?i)\b((?:NVIDIA\s+)?(?:GeForce\s+)?(?:RTX|GTX|TITAN|Tesla|Quadro)[\s-]?(?:PRO\s+)?[A-Z]?\s?\d{2,4}(?:\s?(?:Ti|SUPER|Ada))?|(?:NVIDIA\s+|Tesla\s+)?(?:[ABHLP]\d{2,3}[A-Z]?|[KMTV]\d{2,3}m?|GH200|GB200|B200|T4|L4)(?:[-\s](?:SXM|PCIE)\w*)?|TITAN\s+(?:Xp|X|V|RTX))\b`)
	gluedSeriesRE = lazyre.New(`(?i)(RTX|GTX)(\d)`)
	gpuContextRE  = lazyre.New(`(?i)GeForce|Tesla|Quadro|NVIDIA|\bGPU\b|\bRTX|\bGTX|TITAN|device_name|cuda:\d`)
	// "2xRTX 3080", "8x A100": a count glued to the name.
	gpuCountRE = lazyre.New(`(?i)\b\d+\s*[x×]\s*(RTX|GTX|TITAN|Tesla|[ABHLV]\d)`)
	// A CUDA version the user states: "CUDA 9.0", "cuda:9.0", "CUDA/cuDNN
	// version: 10.0/7.6", "cudatoolkit 10.0", "My cuda version is 10.1",
	// nvcc's "Cuda compilation tools, release 10.2", collect_env's "CUDA
	// runtime version: 10.1.243", a docker image "nvidia/cuda:8.0-cudnn5",
	// a path "/usr/local/cuda-10.2/". nvidia-smi's "CUDA Version:" is the
	// driver's and is read by smiCUDARE instead.
	// The CUDA runtime a framework reports loading: TensorFlow's
	// dso_loader "Successfully opened dynamic library libcudart.so.10.1"
	// (on Windows "cudart64_101.dll"). Only a library that was opened
	// counts: one that could not be ("libcudart.so.10.1: cannot open
	// shared object file") is a missing library, not the stack's CUDA.
	loadedCUDARE = lazyre.New(`(?i)\bopened (?:the )?(?:cuda )?(?:dynamic|shared) library (?:lib)?cudart(?:\.so\.(\d{1,2})\.(\d)\b|64_(\d{1,2})(\d)\.dll)`)
	statedCUDARE = lazyre.New(`(?i)(?:\bcuda(?:[ -]?toolkit)?(?:\s*/\s*cudnn)?(?:\s+runtime)?(?:\s+version)?\s*(?:[:=]=?\s*|\s+is\s+|\s+|\s*v(?:ersion)?\s*|)|\bcudatoolkit\s*(?:[:=]=?\s*|\s+)|nvidia/cuda:|/cuda-|compilation tools, release )v?(\d{1,2})\.(\d)\b`)
	// "TensorFlow version (use command below): 1.14.0-gpu", "tensorflow-gpu==1.13.1",
	// "tensorflow/tensorflow:1.14.0-gpu-py3", "TF 2.0".
	tensorflowRE = lazyre.New(`(?i)\btensorflow(?:[-_]gpu)?(?:\s+version)?(?:\s*\([^)]*\))?\s*(?:[:=]=?|\s+is)?\s*['"]?v?(\d)\.(\d{1,2})\b|\bTF\s?v?([12])\.(\d{1,2})\b`)
)

// cudaTagVersion turns "cu117" into "11.7" and "cu92" into "9.2".
func cudaTagVersion(tag string) string {
	d := strings.TrimPrefix(strings.ToLower(tag), "cu")
	if len(d) < 2 {
		return ""
	}
	return d[:len(d)-1] + "." + d[len(d)-1:]
}

// FromText reads pasted environment output from lines. It returns nil when
// the lines say nothing about the torch build or the GPU.
func FromText(lines []string) *Pasted { return fromText(lines, true) }

// factWords are lower-case words of which every fact pattern below needs
// one; an ASCII line without any of them is passed over without running a
// dozen case-folding regexps on it (explain reads the facts of every log
// that holds a finding, a directory may hold thousands). A line with other
// bytes is always read: two non-ASCII letters fold to 's' and 'k'. The
// architecture lines and wheel tags of pasted_arch.go bring their own.
var factWords = slices.Concat([]string{"torch", "+cu", "cuda", "compilation tools", "tensorflow", "tf", "driver version", "mib",
	"geforce", "tesla", "quadro", "nvidia", "gpu", "rtx", "gtx", "titan", "device_name"},
	archWords, wheelTagWords, ptxWords, proseDriverWords)

// Past the line's gate, each pattern runs only on a line holding one of
// the words it needs (lower case; the case-sensitive patterns' words as
// they are written): most lines that pass name the GPU or torch and hold
// no version at all.
var (
	torchWords      = []string{"torch"}
	buildCUDAWords  = []string{"cuda used to build pytorch:", "torch.version.cuda"}
	statedWords     = []string{"cuda", "compilation tools, release "}
	loadedWords     = []string{"opened"}
	tensorflowWords = []string{"tensorflow", "tf"}
	driverWords     = []string{"driver version"}
	smiCUDAWords    = []string{"cuda version:"}
	titanWords      = []string{"titan"}
	gpuContextWords = []string{"geforce", "tesla", "quadro", "nvidia", "gpu", "rtx", "gtx", "titan", "device_name", "cuda:"}
)

// lineWords is one line as the word gates read it: all is set when every
// pattern must run (gate off, or a line with non-ASCII bytes).
// version is set when the line holds a digit, a dot and a digit, which
// every version pattern needs; digit when it holds a digit at all.
type lineWords struct {
	line, lower    string
	all            bool
	version, digit bool
}

func newLineWords(l string, gate bool) lineWords {
	if !gate {
		return lineWords{line: l, all: true, version: true, digit: true}
	}
	w := lineWords{line: l}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c >= 0x80 {
			return lineWords{line: l, all: true, version: true, digit: true}
		}
		if c >= '0' && c <= '9' {
			w.digit = true
			if i+2 < len(l) && l[i+1] == '.' && l[i+2] >= '0' && l[i+2] <= '9' {
				w.version = true
			}
		}
	}
	w.lower = strings.ToLower(l)
	return w
}

// may: the line holds one of words (lower case) or must be read anyway.
func (w lineWords) may(words []string) bool {
	if w.all {
		return true
	}
	for _, x := range words {
		if strings.Contains(w.lower, x) {
			return true
		}
	}
	return false
}

// has: the line holds the case-sensitive text s or must be read anyway.
func (w lineWords) has(s string) bool { return w.all || strings.Contains(w.line, s) }

// match is re's submatches of l, or nil without running it when the
// line's gate said it cannot match.
func match(may bool, re *lazyre.Regexp, l string) []string {
	if !may {
		return nil
	}
	return re.FindStringSubmatch(l)
}

// fromText is FromText; gate false reads every line (the test of the gate).
func fromText(lines []string, gate bool) *Pasted {
	p := &Pasted{Facts: &Facts{Env: map[string]string{}}, Lines: map[string]int{}, Tool: map[string]bool{}}
	torch := &TorchFacts{}
	var gpus []nvml.GPU
	seenGPU := map[string]bool{}
	var stated, tensorflow, proseDrv string
	source := false // the torch version is a source or container build's
	for i, l := range lines {
		if i > 0 {
			l = capabilityReply(lines[i-1], l)
		}
		w := newLineWords(l, gate)
		if !w.may(factWords) {
			continue
		}
		// The pattern runs only where its match would be used.
		if m := match(w.version && torch.Version == "" && !strings.Contains(l, "/torch/") && w.may(torchWords), torchVersionRE, l); m != nil {
			ver, tag := m[1]+m[3], m[2]+m[4]
			if _, ok := releaseNewestCUDA[torchRelease(ver)]; ok || cudaMajor(ver) >= 1 {
				torch.Version = ver
				p.Lines["torch"] = i
				if at := strings.Index(l, ver); at >= 0 {
					source = sourceBuild(l, at+len(ver))
				}
				if strings.HasPrefix(strings.ToLower(tag), "cu") {
					torch.CUDA = cudaTagVersion(tag)
					p.Lines["cuda"] = i
				}
			}
		}
		if torch.CUDA == "" && w.version && w.has("+cu") {
			if m := tagVersionRE.FindStringSubmatch(l); m != nil {
				if torch.Version == "" {
					torch.Version = m[1]
					p.Lines["torch"] = i
				}
				torch.CUDA = cudaTagVersion(m[2])
				p.Lines["cuda"] = i
			}
		}
		if m := match(w.version && w.may(buildCUDAWords), buildCUDARE, l); m != nil {
			torch.CUDA = m[1] + m[2]
			p.Lines["cuda"] = i
		}
		// nvidia-smi prints its "CUDA Version" on the line of the driver's;
		// a "CUDA version: 11.3" of the user's own is the toolkit's.
		smi := w.version && w.may(smiCUDAWords) && smiCUDARE.MatchString(l) && strings.Contains(l, "Driver Version")
		if stated == "" && !smi && !strings.Contains(l, "CUDA used to build") && w.version && w.may(statedWords) {
			if m := buildMatch(statedCUDARE, l); m != nil && cudaKnown(m[1]) {
				stated = m[1] + "." + m[2]
				p.Lines["stated"] = i
			}
		}
		if stated == "" && w.digit && w.may(loadedWords) {
			if m := loadedCUDARE.FindStringSubmatch(l); m != nil && cudaKnown(m[1]+m[3]) {
				stated = m[1] + m[3] + "." + m[2] + m[4]
				p.Lines["stated"] = i
			}
		}
		if stated == "" {
			if v, ok := proseCUDA(w); ok {
				stated = v
				p.Lines["stated"] = i
			}
		}
		if stated == "" && !strings.Contains(l, "+cu") {
			if v, ok := wheelTagCUDA(w); ok {
				stated = v
				p.Lines["stated"] = i
			} else if v, ok := majorTagCUDA(w); ok {
				stated = v
				p.Lines["stated"] = i
			}
		}
		if tensorflow == "" && w.version && w.may(tensorflowWords) {
			if m := tensorflowRE.FindStringSubmatch(l); m != nil {
				if rel := m[1] + m[3] + "." + m[2] + m[4]; tensorflowCUDA[rel] != "" {
					tensorflow = rel
					p.Lines["tensorflow"] = i
				}
			}
		}
		if m := match(w.version && w.may(driverWords), driverRE, l); m != nil && p.Facts.NVML.DriverVersion == "" {
			p.Facts.NVML.DriverVersion = m[1]
			p.Lines["driver"] = i
		}
		if proseDrv == "" && p.Facts.NVML.DriverVersion == "" {
			if v, ok := proseDriver(w); ok {
				proseDrv = v
				p.Lines["prose_driver"] = i
			}
		}
		if m := match(smi, smiCUDARE, l); m != nil && p.Facts.NVML.CUDAVersion == 0 {
			maj, _ := strconv.Atoi(m[1])
			min, _ := strconv.Atoi(m[2])
			p.Facts.NVML.CUDAVersion = maj*1000 + min*10
			if _, ok := p.Lines["driver"]; !ok {
				p.Lines["driver"] = i
			}
		}
		named := len(gpus)
		// A GPU name holds a number, or is a TITAN.
		if (w.digit || w.may(titanWords)) && w.may(gpuContextWords) && gpuContextRE.MatchString(l) {
			l := gpuCountRE.ReplaceAllString(l, " $1")
			for _, m := range gpuNameRE.FindAllString(l, -1) {
				name := strings.Join(strings.Fields(m), " ")
				// "RTX3090" is written "RTX 3090" in the capability table.
				name = gluedSeriesRE.ReplaceAllString(strings.Replace(name, "-", " ", 1), "$1 $2")
				maj, min, ok := nvml.CCForName(name, "")
				if ok && !p.Tool["gpu"] && toolOutput(lines[i]) {
					p.Tool["gpu"] = true
				}
				if !ok || seenGPU[name] {
					continue
				}
				seenGPU[name] = true
				gpus = append(gpus, nvml.GPU{Index: len(gpus), Name: name, CCMajor: maj, CCMinor: min})
				if _, ok := p.Lines["gpu"]; !ok {
					p.Lines["gpu"] = i
				}
			}
		}
		gpus = readArchLine(w, i, p, gpus, len(gpus) > named)
		readPTXLine(w, i, p)
		if m := match(w.has("MiB"), smiMemoryRE, l); m != nil {
			used, _ := strconv.ParseUint(m[1], 10, 64)
			total, _ := strconv.ParseUint(m[2], 10, 64)
			if total > 0 && len(gpus) > 0 && gpus[len(gpus)-1].MemoryTotal == 0 {
				gpus[len(gpus)-1].MemoryUsed, gpus[len(gpus)-1].MemoryTotal = used<<20, total<<20
				p.Lines["memory"] = i
			}
		}
	}
	// A driver a tool printed wins over one the user wrote.
	if at, ok := p.Lines["prose_driver"]; ok {
		delete(p.Lines, "prose_driver")
		if p.Facts.NVML.DriverVersion == "" {
			p.Facts.NVML.DriverVersion = proseDrv
			p.Lines["driver"] = at
		}
	}
	// A driver with a stated or TensorFlow's CUDA is enough for the
	// driver check of a build it cannot run.
	driverAndCUDA := (p.Facts.NVML.DriverVersion != "" || p.Facts.NVML.CUDAVersion > 0) && (stated != "" || tensorflow != "")
	if torch.Version == "" && torch.CUDA == "" && len(gpus) == 0 && p.Facts.BuildArchs == nil && p.Facts.PTX == nil && !driverAndCUDA {
		return nil
	}
	for k, i := range p.Lines {
		p.Tool[k] = p.Tool[k] || toolOutput(lines[i])
	}
	p.Facts.Toolkit = toolkitOf(torch, stated, tensorflow, source)
	if torch.Version != "" || torch.CUDA != "" {
		torch.ArchList = buildArchList(torch)
		devs := make([]TorchDevice, len(gpus))
		for i, g := range gpus {
			devs[i] = TorchDevice{Index: i, Name: g.Name, Capability: [2]int{g.CCMajor, g.CCMinor}}
		}
		p.Facts.Python = &PythonFacts{Source: "pasted", Torch: torch, CUDA: &TorchCUDA{Available: true, DeviceCount: len(gpus), Devices: devs}}
	}
	p.Facts.NVML.GPUs = gpus
	p.Facts.NVML.Loaded = p.Facts.NVML.DriverVersion != "" || p.Facts.NVML.CUDAVersion > 0 || len(gpus) > 0
	return p
}

// buildArchList is the arch list a torch build carries. Where the release's
// wheels are known it is theirs; otherwise it is every architecture the
// build's CUDA toolkit can compile for, which is what decides the common
// cases (a CUDA 10 build on an sm_86 card, a CUDA 12.1 build on sm_120).
func buildArchList(t *TorchFacts) []string {
	if t.CUDA == "" {
		return nil
	}
	for _, v := range wheelVariants[torchRelease(t.Version)] {
		if v.cuda == majorMinor(t.CUDA) {
			out := append([]string{}, v.archs...)
			if v.ptx != "" {
				out = append(out, v.ptx+"+PTX")
			}
			return out
		}
	}
	lo, hi := toolkitArchRange(t.CUDA)
	if hi == 0 {
		return nil
	}
	var out []string
	for _, cc := range knownCCs {
		if cc >= lo && cc <= hi {
			out = append(out, fmt.Sprintf("%d.%d", cc/10, cc%10))
		}
	}
	return out
}

// knownCCs are the compute capabilities of released GPUs, as 10*major+minor.
var knownCCs = []int{30, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121}

// toolkitArchRange is the oldest and newest compute capability a CUDA
// toolkit compiles for (knowledge base section 1.6 and the toolkits' release
// notes): CUDA 11.0 added sm_80, 11.1 sm_86, 11.8 sm_89/sm_90, 12.8 sm_100
// and sm_120; CUDA 11 dropped sm_30, CUDA 12 sm_35/sm_37, CUDA 13 sm_50-sm_72.
func toolkitArchRange(cuda string) (lo, hi int) {
	v := cudaNumber(cuda)
	for _, r := range toolkitArchs {
		if v < r.below {
			return r.lo, r.hi
		}
	}
	return 75, 121
}

// toolkitArchs: a CUDA version (10*major+minor) below `below` compiles for
// lo..hi; CUDA 7 (the oldest listed) for sm_20 to sm_53, CUDA 8 to sm_62.
var toolkitArchs = []struct{ below, lo, hi int }{
	{80, 20, 53}, {90, 20, 62}, {100, 30, 72}, {110, 30, 75}, {111, 35, 80}, {118, 35, 86}, {120, 35, 90}, {128, 50, 90}, {130, 50, 121},
}

// toolkitOf is the CUDA version the failing stack was built with, from
// the most direct statement a report makes: the torch build's own CUDA, a
// version the user wrote, the named TensorFlow release's, or the newest of
// the named torch release's wheels (not for a source or container build,
// whose CUDA no wheel table knows).
func toolkitOf(t *TorchFacts, stated, tensorflow string, source bool) *Toolkit {
	newest := ""
	if t.Version != "" && !source {
		newest = newestCUDAOf(torchRelease(t.Version))
	}
	switch {
	case t.CUDA != "":
		return &Toolkit{Version: t.CUDA, From: "the torch build's"}
	case newest != "" && (stated == "" || cudaNumber(stated) > cudaNumber(newest)):
		// A stated CUDA newer than any build of the torch release is the
		// system's toolkit, not the one torch carries.
		return &Toolkit{Version: newest, From: "the newest of torch " + torchRelease(t.Version) + "'s builds"}
	case stated != "":
		return &Toolkit{Version: stated, From: "as stated"}
	case tensorflow != "":
		return &Toolkit{Version: tensorflowCUDA[tensorflow], From: "TensorFlow " + tensorflow + "'s"}
	}
	return nil
}

// cudaNumber orders CUDA versions: "10.2" is 102.
func cudaNumber(v string) int { return cudaMajor(v)*10 + cudaMinor(v) }

// cudaKnown: a CUDA major version that has existed (7 to 13), so "cuda 0.5"
// in prose is not read as one.
func cudaKnown(major string) bool {
	n, _ := strconv.Atoi(major)
	return n >= 7 && n <= 13
}

// pastedChecks are the checks whose facts a paste can hold.
var pastedChecks = []Check{driverVersionCheck, toolkitDriverCheck, ptxVersionCheck, gpuArchCheck, toolkitArchCheck, buildArchCheck, legacyGPUCheck, gpuMemoryCheck}

// Judge runs the checks that pasted facts can answer and returns their
// failing findings (errors only); each one's evidence names the pasted
// lines by position (Evidence.Line is the line's index + 1).
func (p *Pasted) Judge() []report.Finding {
	var out []report.Finding
	for _, c := range pastedChecks {
		r := c.Run(p.Facts)
		for _, fd := range r.Findings {
			if fd.Severity < report.Error {
				continue
			}
			fd.Rule, fd.Class = c.ID, c.Class()
			if fd.Facts == nil {
				fd.Facts = map[string]any{}
			}
			fd.Facts["pasted_from"] = p.provenance(c.ID)
			fd.Evidence = nil
			for _, k := range evidenceKeys[c.ID] {
				if i, ok := p.Lines[k]; ok {
					fd.Evidence = append(fd.Evidence, report.Evidence{Line: i + 1})
				}
			}
			out = append(out, fd)
		}
	}
	return out
}

var evidenceKeys = map[string][]string{
	"env/driver-version": {"driver", "cuda"},
	"env/toolkit-driver": {"driver", "stated", "tensorflow", "torch"},
	"env/gpu-arch":       {"cuda"},
	"env/toolkit-arch":   {"cuda", "stated", "tensorflow", "torch"},
	"env/gpu-memory":     {"memory", "gpu"},
	"env/build-arch":     {"build_archs"},
	"env/ptx-version":    {"ptx", "driver"},
	"env/legacy-gpu":     {"gpu"},
}
