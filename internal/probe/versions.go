package probe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DriverVersion is an NVIDIA driver version such as 580.159.04.
type DriverVersion [3]int

// ParseDriverVersion reads "580.159.04" (missing parts are 0).
func ParseDriverVersion(s string) (DriverVersion, bool) {
	var v DriverVersion
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) == 0 || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, v[0] > 0
}

// Less orders driver versions.
func (v DriverVersion) Less(o DriverVersion) bool {
	for i := range v {
		if v[i] != o[i] {
			return v[i] < o[i]
		}
	}
	return false
}

func (v DriverVersion) String() string {
	if v[2] == 0 && v[1] == 0 {
		return strconv.Itoa(v[0])
	}
	return fmt.Sprintf("%d.%02d.%02d", v[0], v[1], v[2])
}

// cudaToolkit is the toolkit PyTorch's wheels for a CUDA major.minor were
// built with, and the driver that toolkit needs for all its features
// (knowledge base §1.1; PyTorch's install_cuda.sh picks these updates).
// The versions no wheel was built with (11.2 of TensorFlow's builds, the
// 11.4, 11.5, 12.0 and 12.2 toolkits users name) list their GA release.
type cudaToolkit struct {
	toolkit   string
	minDriver string
	confirmed bool
}

var toolkits = map[string]cudaToolkit{
	"10.0": {"10.0.130", "410.48", false},
	"10.1": {"10.1.243", "418.39", false},
	"10.2": {"10.2.89", "440.33", true},
	"11.0": {"11.0.3", "450.51.06", false},
	"11.1": {"11.1.1", "455.32", false},
	"11.2": {"11.2.0", "460.27.03", false},
	"11.3": {"11.3.1", "465.19.01", true},
	"11.4": {"11.4.0", "470.42.01", false},
	"11.5": {"11.5.0", "495.29.05", true},
	"11.6": {"11.6.2", "510.47.03", true},
	"11.7": {"11.7.0", "515.43.04", true},
	"11.8": {"11.8.0", "520.61.05", true},
	"12.0": {"12.0.0", "525.60.13", true},
	"12.1": {"12.1.1", "530.30.02", true},
	"12.2": {"12.2.0", "535.54.03", false},
	"12.4": {"12.4.1", "550.54.15", true},
	"12.6": {"12.6.3", "560.35.05", true},
	"12.8": {"12.8.1", "570.124.06", true},
	"12.9": {"12.9.1", "575.57.08", true},
	"13.0": {"13.0.2", "580.95.05", true},
	"13.1": {"13.1.0", "590.44.01", true},
	"13.2": {"13.2.2", "595.71.05", false},
}

// familyMinimum is the oldest driver that runs any toolkit of a CUDA major
// through minor-version compatibility (§1.2). Before CUDA 11 there was none.
var familyMinimum = map[int]string{11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}

// DriverRequirement is what a CUDA major.minor build needs from the driver.
type DriverRequirement struct {
	CUDA    string
	Toolkit string
	// Full runs everything; Family runs with minor-version compatibility
	// (no JIT of newer PTX). Family is zero before CUDA 11.
	Full, Family DriverVersion
	Confirmed    bool
}

// RequirementFor returns the driver a CUDA "major.minor" build needs.
func RequirementFor(cuda string) (DriverRequirement, bool) {
	mm := majorMinor(cuda)
	t, ok := toolkits[mm]
	if !ok {
		return DriverRequirement{}, false
	}
	r := DriverRequirement{CUDA: mm, Toolkit: t.toolkit, Confirmed: t.confirmed}
	r.Full, _ = ParseDriverVersion(t.minDriver)
	if f, ok := familyMinimum[cudaMajor(mm)]; ok {
		r.Family, _ = ParseDriverVersion(f)
	}
	return r, true
}

func majorMinor(v string) string {
	parts := strings.Split(strings.TrimSpace(v), ".")
	if len(parts) < 2 {
		return strings.TrimSpace(v)
	}
	return parts[0] + "." + parts[1]
}

func cudaMajor(v string) int {
	n, _ := strconv.Atoi(strings.Split(strings.TrimSpace(v), ".")[0])
	return n
}

// cudaVersionString renders 13000 as "13.0".
func cudaVersionString(v int) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
}

// wheelVariant is one CUDA build of a PyTorch release (Linux x86_64) and the
// compute capabilities it carries cubins for; ptx is the one PTX target.
type wheelVariant struct {
	cuda  string
	archs []string
	ptx   string
}

var (
	arch126  = []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}
	arch128v = []string{"7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}
	arch128  = []string{"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}
)

// wheelVariants lists the CUDA variants of each release (knowledge base
// §3.1) with their arch lists (§3.2); the first is the PyPI default.
var wheelVariants = map[string][]wheelVariant{
	"2.4":  {{"12.1", []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}, {"11.8", []string{"3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}, {"12.4", []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}},
	"2.5":  {{"12.4", []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}, {"11.8", []string{"3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}, {"12.1", []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}},
	"2.6":  {{"12.4", arch126, ""}, {"11.8", []string{"3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}, {"12.6", arch126, ""}},
	"2.7":  {{"12.6", arch126, ""}, {"11.8", []string{"3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}, ""}, {"12.8", arch128, ""}},
	"2.8":  {{"12.8", arch128v, ""}, {"12.6", arch126, ""}, {"12.9", arch128v, "12.0"}},
	"2.9":  {{"12.8", arch128v, ""}, {"12.6", arch126, ""}, {"13.0", arch128, "12.0"}},
	"2.10": {{"12.8", arch128v, ""}, {"12.6", arch126, ""}, {"13.0", arch128, "12.0"}},
	"2.11": {{"13.0", arch128, ""}, {"12.6", arch126, ""}, {"12.8", arch128, ""}},
	"2.12": {{"13.0", arch128, "12.0"}, {"12.6", arch126, ""}, {"13.2", arch128, "12.0"}},
	"2.13": {{"13.0", arch128, "12.0"}, {"12.6", arch126, ""}, {"13.2", arch128, "12.0"}},
	"2.14": {{"13.2", arch128, "12.0"}, {"12.6", arch126, ""}, {"13.0", arch128, "12.0"}},
}

// torchRelease turns "2.11.0+cu130" into "2.11".
func torchRelease(v string) string {
	v = strings.SplitN(strings.TrimSpace(v), "+", 2)[0]
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return v
	}
	minor := parts[1]
	for i, c := range minor {
		if c < '0' || c > '9' {
			minor = minor[:i]
			break
		}
	}
	return parts[0] + "." + minor
}

// releaseAtLeast compares "2.11" with "2.8" numerically.
func releaseAtLeast(rel, min string) bool {
	a := strings.SplitN(rel, ".", 2)
	b := strings.SplitN(min, ".", 2)
	if len(a) < 2 || len(b) < 2 {
		return false
	}
	am, _ := strconv.Atoi(a[0])
	an, _ := strconv.Atoi(a[1])
	bm, _ := strconv.Atoi(b[0])
	bn, _ := strconv.Atoi(b[1])
	return am > bm || (am == bm && an >= bn)
}

// cudaTag turns "12.6" into "cu126".
func cudaTag(cuda string) string { return "cu" + strings.ReplaceAll(majorMinor(cuda), ".", "") }

// pipCommand is the install command for a release and CUDA variant.
func pipCommand(release, cuda string) string {
	spec := "torch"
	if release != "" {
		spec = "torch==" + release + ".*"
	}
	return fmt.Sprintf("pip install --force-reinstall '%s' --index-url https://download.pytorch.org/whl/%s", spec, cudaTag(cuda))
}

// Arch is a compiled target of a torch build: sm_90 (cubin), sm_90a
// (architecture-specific cubin), compute_90 (PTX).
type Arch struct {
	Major, Minor int
	PTX          bool
	Specific     bool // "a" suffix: runs only on exactly this CC
}

// ParseArch reads "sm_90", "sm_90a", "sm_100f", "compute_120" or "9.0", "8.6+PTX".
func ParseArch(s string) (Arch, bool) {
	s = strings.TrimSpace(s)
	var a Arch
	switch {
	case strings.HasPrefix(s, "sm_"):
		s = s[3:]
	case strings.HasPrefix(s, "compute_"):
		s, a.PTX = s[8:], true
	default:
		if base, ok := strings.CutSuffix(s, "+PTX"); ok {
			s, a.PTX = base, true
		}
		ma, mi, ok := strings.Cut(s, ".")
		if !ok {
			return a, false
		}
		if strings.HasSuffix(mi, "a") {
			mi, a.Specific = strings.TrimSuffix(mi, "a"), true
		}
		x, err1 := strconv.Atoi(ma)
		y, err2 := strconv.Atoi(mi)
		if err1 != nil || err2 != nil {
			return a, false
		}
		a.Major, a.Minor = x, y
		return a, true
	}
	if strings.HasSuffix(s, "a") {
		s, a.Specific = strings.TrimSuffix(s, "a"), true
	} else {
		s = strings.TrimSuffix(s, "f")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 10 {
		return a, false
	}
	a.Major, a.Minor = n/10, n%10
	return a, true
}

// Runs reports whether code built for a runs on a GPU of compute capability
// major.minor: a cubin runs on the same major with an equal or newer minor
// (an "a" cubin only on exactly its CC); PTX JIT-compiles for any newer CC.
func (a Arch) Runs(major, minor int) bool {
	if a.PTX {
		return major > a.Major || (major == a.Major && minor >= a.Minor)
	}
	if a.Specific {
		return major == a.Major && minor == a.Minor
	}
	return major == a.Major && minor >= a.Minor
}

// archListRuns reports whether any compiled target runs on the CC.
func archListRuns(list []string, major, minor int) bool {
	for _, s := range list {
		if a, ok := ParseArch(s); ok && a.Runs(major, minor) {
			return true
		}
	}
	return false
}

// variantsFor lists the CUDA variants of a release whose wheels run on the
// CC, the PyPI default first.
func variantsFor(release string, major, minor int) []string {
	var out []string
	for _, v := range wheelVariants[release] {
		list := append([]string{}, v.archs...)
		if v.ptx != "" {
			list = append(list, v.ptx+"+PTX")
		}
		if archListRuns(list, major, minor) {
			out = append(out, v.cuda)
		}
	}
	return out
}

// newestReleaseFor is the newest known release with a variant running on the CC.
func newestReleaseFor(major, minor int) (string, string) {
	rels := make([]string, 0, len(wheelVariants))
	for r := range wheelVariants {
		rels = append(rels, r)
	}
	sort.Slice(rels, func(i, j int) bool { return releaseAtLeast(rels[i], rels[j]) && rels[i] != rels[j] })
	for _, r := range rels {
		if vs := variantsFor(r, major, minor); len(vs) > 0 {
			return r, vs[0]
		}
	}
	return "", ""
}

// releaseNewestCUDA is, for torch releases before the ones wheelVariants
// lists, the newest CUDA any of its official wheels was built with: a GPU
// newer than that CUDA knows has no kernels in any build of the release.
var releaseNewestCUDA = map[string]string{
	"0.1": "8.0", "0.2": "8.0", "0.3": "9.1", "0.4": "9.2",
	"1.0": "10.0", "1.1": "10.0", "1.2": "10.0", "1.3": "10.1", "1.4": "10.1", "1.5": "10.2", "1.6": "10.2",
	"1.7": "11.0", "1.8": "11.1", "1.9": "11.1", "1.10": "11.3", "1.11": "11.5", "1.12": "11.6", "1.13": "11.7",
	"2.0": "11.8", "2.1": "12.1", "2.2": "12.1", "2.3": "12.1",
}

// newestCUDAOf is the newest CUDA of a torch release's wheels, or "".
func newestCUDAOf(release string) string {
	if v, ok := releaseNewestCUDA[release]; ok {
		return v
	}
	best := ""
	for _, w := range wheelVariants[release] {
		if best == "" || cudaNumber(w.cuda) > cudaNumber(best) {
			best = w.cuda
		}
	}
	return best
}

// tensorflowCUDA is the CUDA each TensorFlow release's GPU build was
// tested with (TensorFlow's tested build configurations).
var tensorflowCUDA = map[string]string{
	"1.0": "8.0", "1.1": "8.0", "1.2": "8.0", "1.3": "8.0", "1.4": "8.0",
	"1.5": "9.0", "1.6": "9.0", "1.7": "9.0", "1.8": "9.0", "1.9": "9.0", "1.10": "9.0", "1.11": "9.0", "1.12": "9.0",
	"1.13": "10.0", "1.14": "10.0", "1.15": "10.0", "2.0": "10.0",
	"2.1": "10.1", "2.2": "10.1", "2.3": "10.1", "2.4": "11.0",
	"2.5": "11.2", "2.6": "11.2", "2.7": "11.2", "2.8": "11.2", "2.9": "11.2", "2.10": "11.2", "2.11": "11.2",
	"2.12": "11.8", "2.13": "11.8", "2.14": "11.8", "2.15": "12.2", "2.16": "12.3", "2.17": "12.3", "2.18": "12.5",
}
