package kb

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Status is one canonical error status of CUDA, a CUDA library or NCCL.
// Real logs spell one status many ways (cudaErrorIllegalAddress,
// CUDA_ERROR_ILLEGAL_ADDRESS, "error 700", "error=77" before CUDA 10.1,
// "an illegal memory access was encountered", in any case, hard-wrapped);
// the status layer finds the status behind any of them, so signatures only
// have to add what is specific.
type Status struct {
	// Family is "cuda", "cublas", "cudnn", "cusolver", "cusparse", "cufft",
	// "curand" or "nccl".
	Family string
	// Name is the canonical spelling: the runtime's cudaError name, or the
	// library's status name (CUBLAS_STATUS_ALLOC_FAILED, ncclSystemError).
	Name    string
	Code    int
	Message string
	// Class is the taxonomy class the status surfaces as; empty when the
	// status says nothing by itself ("invalid argument").
	Class string
	// Remedies, for a status without a class, say what usually stands
	// behind it.
	Remedies []string
	// Obscure: a status of an API training code does not call.
	Obscure bool
}

// StatusHit is a status found on a line, with the text that named it.
type StatusHit struct {
	Status *Status
	Text   string
}

type statusFile struct {
	CUDA []struct {
		Code    int      `yaml:"code"`
		Legacy  int      `yaml:"legacy"`
		Name    string   `yaml:"name"`
		Driver  string   `yaml:"driver"`
		Message string   `yaml:"message"`
		Phrases []string `yaml:"phrases"`
		Generic bool     `yaml:"generic"`
		Obscure bool     `yaml:"obscure"`
		Class   string   `yaml:"class"`
		// Remedies are for statuses without a class.
		Remedies []string `yaml:"remedies"`
	} `yaml:"cuda"`
	Libraries []struct {
		Family   string            `yaml:"family"`
		Prefix   string            `yaml:"prefix"`
		Class    string            `yaml:"class"`
		Statuses map[string]int    `yaml:"statuses"`
		Messages map[string]string `yaml:"messages"`
		// Remedies are for the family's statuses without a class.
		Remedies []string `yaml:"remedies"`
	} `yaml:"libraries"`
	// Overrides give a library status suffix its own class whatever the
	// library (ALLOC_FAILED is an out-of-memory in every one of them).
	Overrides map[string]string `yaml:"overrides"`
}

type phrase struct {
	text    string // as written in statuses.yaml
	norm    string
	generic bool
	st      *Status
}

// statusTable is the loaded statuses.yaml.
type statusTable struct {
	byName map[string]*Status // lower-cased name -> status
	// byKey finds a CUDA status by the words of its name alone, in any
	// spelling: cudaErrorInsufficientDriver, CUDA_ERROR_INSUFFICIENT_DRIVER
	// and "CUDAError InsufficientDriver" all read "insufficientdriver".
	byKey  map[string]*Status
	byCode map[int]*Status
	// familyClass and familyRemedies are each library family's own, for
	// the statuses it has that the table does not list.
	familyClass    map[string]string
	familyRemedies map[string][]string
	// libCode finds a library status by family and number.
	libCode  map[string]map[int]*Status
	byLegacy map[int]*Status
	phrases  []phrase // longest first
	// sigs is the signature a status hit fires as, one per class, so that
	// precedence and refinement treat it like any other.
	sigs map[string]*Signature
}

func loadStatuses(b []byte, known func(string) bool) (*statusTable, error) {
	var f statusFile
	if err := yaml.UnmarshalWithOptions(b, &f, yaml.Strict()); err != nil {
		return nil, err
	}
	t := &statusTable{byName: map[string]*Status{}, byKey: map[string]*Status{}, libCode: map[string]map[int]*Status{}, familyClass: map[string]string{}, familyRemedies: map[string][]string{}, byCode: map[int]*Status{}, byLegacy: map[int]*Status{}, sigs: map[string]*Signature{}}
	addName := func(n string, s *Status) error {
		k := strings.ToLower(n)
		if _, dup := t.byName[k]; dup {
			return fmt.Errorf("status name %s listed twice", n)
		}
		t.byName[k] = s
		return nil
	}
	for _, c := range f.CUDA {
		if c.Class != "" && !known(c.Class) {
			return nil, fmt.Errorf("status %s: unknown class %q", c.Name, c.Class)
		}
		s := &Status{Family: "cuda", Name: c.Name, Code: c.Code, Message: c.Message, Class: c.Class, Remedies: c.Remedies, Obscure: c.Obscure}
		if err := addName(c.Name, s); err != nil {
			return nil, err
		}
		if c.Driver != "" {
			if err := addName(c.Driver, s); err != nil {
				return nil, err
			}
		}
		for _, n := range []string{strings.TrimPrefix(c.Name, "cudaError"), strings.TrimPrefix(c.Driver, "CUDA_ERROR_")} {
			if k := nameKey(n); k != "" {
				if o, dup := t.byKey[k]; dup && o != s {
					return nil, fmt.Errorf("status name key %s names both %s and %s", k, o.Name, s.Name)
				}
				t.byKey[k] = s
			}
		}
		t.byCode[c.Code] = s
		if c.Legacy != 0 {
			t.byLegacy[c.Legacy] = s
		}
		if c.Message != "" { // 300 prints 200's words: those stay 200's
			t.phrases = append(t.phrases, phrase{c.Message, normalize(c.Message), c.Generic, s})
		}
		for _, p := range c.Phrases {
			t.phrases = append(t.phrases, phrase{p, normalize(p), false, s})
		}
	}
	for _, l := range f.Libraries {
		if l.Class != "" && !known(l.Class) {
			return nil, fmt.Errorf("status family %s: unknown class %q", l.Family, l.Class)
		}
		t.familyClass[l.Family], t.familyRemedies[l.Family] = l.Class, l.Remedies
		for suffix, code := range l.Statuses {
			class := l.Class
			if o, ok := f.Overrides[suffix]; ok {
				class = o
			}
			if class != "" && !known(class) {
				return nil, fmt.Errorf("status override %s: unknown class %q", suffix, class)
			}
			s := &Status{Family: l.Family, Name: l.Prefix + suffix, Code: code, Class: class}
			if class == "" {
				s.Remedies = l.Remedies
			}
			if err := addName(s.Name, s); err != nil {
				return nil, err
			}
			if t.libCode[l.Family] == nil {
				t.libCode[l.Family] = map[int]*Status{}
			}
			t.libCode[l.Family][code] = s
			if m, ok := l.Messages[suffix]; ok {
				s.Message = m
				t.phrases = append(t.phrases, phrase{m, normalize(m), false, s})
			}
		}
		for suffix := range l.Messages {
			if _, ok := l.Statuses[suffix]; !ok {
				return nil, fmt.Errorf("status family %s: message for unknown status %s", l.Family, suffix)
			}
		}
	}
	sort.SliceStable(t.phrases, func(i, j int) bool { return len(t.phrases[i].norm) > len(t.phrases[j].norm) })
	// One synthetic signature per class a status names, made here so that
	// Classify only reads the table (the engine runs it concurrently).
	for _, st := range t.byName {
		if st.Class != "" && t.sigs[st.Class] == nil {
			t.sigs[st.Class] = &Signature{ID: "status", Strength: Primary, Versions: "any spelling of the status (statuses.yaml)"}
		}
	}
	return t, nil
}

// unlisted stands for a status name of a known family that the table does
// not list: one added by a release newer than the table, or a library's
// finer status (cuDNN 9's CUDNN_STATUS_BAD_PARAM_NULL_POINTER). A failure
// that names one is still a failure: it surfaces as the listed status its
// name extends, else as its family's class, else as a status of no class.
// Names that are no error (the SUCCESS values) and families whose prefix
// also begins other constants (CUFFT_R2C, ncclAllReduce) give nil.
func (t *statusTable) unlisted(name string) *Status {
	family := ""
	switch {
	case strings.HasSuffix(name, "_SUCCESS"):
		return nil
	case strings.HasPrefix(name, "cudaError"), strings.HasPrefix(name, "CUDA_ERROR_"):
		family = "cuda"
	case strings.Contains(name, "_STATUS_"):
		family = strings.ToLower(name[:strings.Index(name, "_STATUS_")])
	default:
		return nil
	}
	s := &Status{Family: family, Name: name}
	if family == "cuda" {
		return s
	}
	best := ""
	for n, o := range t.byName {
		if o.Family == family && len(n) > len(best) && strings.HasPrefix(strings.ToLower(name), n+"_") {
			best = n
			s.Class, s.Remedies = o.Class, o.Remedies
		}
	}
	if best == "" {
		s.Class = t.familyClass[family]
		s.Remedies = t.familyRemedies[family]
	}
	return s
}

// camelCuda is true when "Cuda" or "CUDA" runs straight into a
// capitalised word ("CudaInvalidResourceHandle").
func camelCuda(line string) bool {
	for _, p := range []string{"Cuda", "CUDA"} {
		for i := strings.Index(line, p); i >= 0; {
			if j := i + len(p); j+1 < len(line) && line[j] >= 'A' && line[j] <= 'Z' && line[j+1] >= 'a' && line[j+1] <= 'z' {
				return true
			}
			k := strings.Index(line[i+1:], p)
			if k < 0 {
				break
			}
			i += 1 + k
		}
	}
	return false
}

// nameKey is the words of a status name without case or separators.
func nameKey(n string) string {
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normalize folds case and punctuation: "CUDA-capable device(s) is/are
// busy" and "cuda capable device s is are busy" read the same. Punctuation
// and spaces outside ASCII (a typographic dash, an ideographic comma)
// separate words as ASCII's do.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
			space = false
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsPunct(r) || unicode.IsSpace(r) {
				if !space {
					b.WriteByte(' ')
					space = true
				}
			} else {
				b.WriteString(s[i : i+n])
				space = false
			}
			i += n - 1
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
			space = false
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

var (
	// statusNameRE finds the spelled-out names of every family.
	statusNameRE = lazyre.New(`\b(?:cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+|CU(?:BLAS|DNN|SOLVER|SPARSE|RAND)_STATUS_[A-Z_]+|CUFFT_[A-Z_]+|nccl[A-Z][A-Za-z]+)`)
	// statusCodeREs find a CUDA error number in the contexts that print
	// one: THC's "error=59", "cuda runtime error (59)", C macros' "CUDA
	// error = 999" and "CUDA Error 700", "CUDA error: error code 34",
	// Numba's "[700] Call to", "code=700", and a driver call's result that
	// TensorFlow's driver wrapper has no name for ("failed call to cuInit:
	// UNKNOWN ERROR (34)"; CUresult and cudaError_t share these numbers).
	legacyCodeRE = lazyre.New(`(?i)(?:cuda runtime error \((\d{1,3})\)|THCudaCheck FAIL file=\S+ line=\d+ error=(\d{1,3}))`)
	modernCodeRE = lazyre.New(`(?i)(?:\bcuda(?:\s+driver)?\s+error(?::?\s+error)?(?:\s+code)?\s*[=:]?\s*\(?(?:err(?:_?no|or_?code)?\s*[=:]\s*)?(\d{1,3})\)?(?:\D|$)|\bCudaAPIError: \[(\d{1,3})\]|\bcode=(\d{1,3})\(|\bcall to cu[A-Z]\w*: UNKNOWN ERROR \((\d{1,3})\))`)
	// hexCodeRE finds a CUDA error printed as a hexadecimal enum value,
	// as Julia's CUDA.jl does: "CuError(code=CUDA.cudaError_enum(0x000002bc)".
	hexCodeRE = lazyre.New(`\bcudaError_enum\(0x([0-9a-fA-F]{1,8})\)`)
	// spelledNameRE finds a CUDA status name written apart from its
	// prefix, as wrappers print the enum member after the error type:
	// "CUDAError InsufficientDriver", "cudaError_t.NoDevice", "CUDA
	// error: INVALID_DEVICE", or behind "Cuda" alone
	// ("CudaInvalidResourceHandle"). The name must look like an identifier
	// (two capitals, or capitals joined by underscores), not a word of prose.
	spelledNameRE = lazyre.New(`(?:(?i:\bcuda[ _.]?error)(?:_t|_enum)?[ .:=]*|\b(?:Cuda|CUDA))([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[A-Z0-9]+(?:_[A-Z0-9]+)+)\b`)
	// errorContext marks a line as speaking of a CUDA error, which a
	// generic message ("out of memory", "unknown error") needs to count:
	// besides the usual wordings, TensorRT's "Error Code 1: Cuda Runtime
	// (invalid resource handle)" and OpenCV's CUDA API error code -217
	// ("error: (-217) invalid resource handle"), QUDA's "ERROR: (CUDA)
	// invalid resource handle", TensorRT's driver counterpart "Error Code
	// 1: Cuda Driver (invalid resource handle)", and jaxlib's "CUDA
	// operation failed: out of memory" (gpu_kernel_helpers.cc, jaxlib
	// 0.1-0.4).
	errorContexts = []string{" cuda error ", " cuda runtime ", " cuda driver error ", " cuda failure ", " gpuassert ",
		" cuda api ", " cudaerror", " thcudacheck ", " cuda call ", " cuda rt ", " cudart ", " error 217 ", " thrust system ", " error cuda ", " cuda driver ", " cuda operation failed ",
		// A check macro that compares a result with cudaSuccess, and a
		// line naming cudaMalloc itself, speak of a CUDA call's result:
		// faiss prints "'err == cudaSuccess' failed: failed to cudaMalloc
		// N bytes (error 2 out of memory)" and, wrapped, "(cudaMalloc error
		// out of memory [2])".
		" cudasuccess ", " cudamalloc "}
)

// cudaCallRE is a CUDA runtime or driver API call quoted with its
// arguments and said to have failed, as C++ check macros print it
// ("cudaStreamCreate(&m_stream) failed with error unknown error"), or
// named bare before "failed:" and the driver's message, as PyCUDA raises
// its errors ("MemoryError: cuMemAlloc failed: out of memory"): it too
// makes a generic message a CUDA error. A call named in prose
// ("Unexpected error from cudaGetDeviceCount()") is not such a report.
var cudaCallRE = lazyre.New(`\bcu(?:da)?[A-Z][A-Za-z0-9]*(?:_v\d)?(?:\([^()]+\) (?:failed|returned)| failed: )`)

// cudaSourceRE is an error reported at a line of a CUDA source file, as C
// check macros print cudaGetErrorString's message with __LINE__ and
// __FILE__ ("Error named symbol not found at line 116 in file
// csrc/ops.cu", bitsandbytes' CUDA_CHECK_RETURN) or append the place in
// parentheses ("... (at src/kernels/gemv_awq.cu:313)"): the file being a
// .cu or .cuh makes the message a CUDA status.
var cudaSourceRE = lazyre.New(`(?i)\berror\b.*(?:\bat line \d+ in file \S+\.cuh?\b|\(at \S+\.cuh?:\d+\))`)

// deviceLabelRE is a device's label that a tool prints before the
// message it got from that device, after a bracketed time stamp or none:
// ccminer's "GPU 0: unknown error", "[2018-08-02 10:11:12] GPU #1: out of
// memory", "[GPU 2]: unknown error".
var deviceLabelRE = lazyre.New(`(?i)^\s*(?:\[[0-9:./ T-]+\]\s*)?\[?gpu\s?#?\d{1,2}\]?\s*:\s*`)

// deviceLabelled reports whether line is a device's label followed by the
// generic message norm and nothing else: the message is then the
// device's status, not a word of prose ("GPU 0: unknown error" is one,
// "GPU 0: I got an unknown error yesterday" is not).
func deviceLabelled(line, norm string) bool {
	loc := deviceLabelRE.FindStringIndex(line)
	if loc == nil {
		return false
	}
	return strings.TrimSpace(normalize(line[loc[1]:])) == strings.TrimSpace(norm)
}

func hasErrorContext(norm string) bool {
	for _, c := range errorContexts {
		if strings.Contains(norm, c) {
			return true
		}
	}
	return false
}

// Statuses finds every canonical status a line names, by name, by number
// in a known context, or by message. A status is reported once per line.
func (k *KB) Statuses(line string) []StatusHit {
	if k.status == nil {
		return nil
	}
	t := k.status
	line = foldWidth(line)
	var out []StatusHit
	seen := map[*Status]bool{}
	add := func(s *Status, text string) {
		if s != nil && !seen[s] {
			seen[s] = true
			out = append(out, StatusHit{s, text})
		}
	}
	// Each regex runs only on a line holding a text it needs (Go's regexp
	// has no literal pre-filter of its own, and every line of every
	// failure comes here). The case-folding ones are always run on a line
	// with non-ASCII bytes: two of those fold to 'k' and 's'.
	if strings.Contains(line, "cudaError") || strings.Contains(line, "CUDA_ERROR_") || strings.Contains(line, "_STATUS_") ||
		strings.Contains(line, "CUFFT_") || strings.Contains(line, "nccl") {
		for _, m := range statusNameRE.FindAllString(line, -1) {
			s := t.byName[strings.ToLower(m)]
			if s == nil && !strings.HasPrefix(m, "nccl") {
				// A CUDA name in the other API's style
				// (CUDA_ERROR_INSUFFICIENT_DRIVER for the runtime's status).
				s = t.byKey[nameKey(strings.TrimPrefix(strings.TrimPrefix(m, "cudaError"), "CUDA_ERROR_"))]
			}
			if s == nil {
				s = t.unlisted(m)
			}
			add(s, m)
		}
	}
	lower, ascii := lowerASCII(line)
	if strings.Contains(lower, "cudaerror") || strings.Contains(lower, "cuda error") || strings.Contains(lower, "cuda_error") || strings.Contains(lower, "cuda.error") || camelCuda(line) {
		for _, m := range spelledNameRE.FindAllStringSubmatch(line, -1) {
			add(t.byKey[nameKey(m[1])], strings.TrimSpace(m[0]))
		}
	}
	if !ascii || strings.Contains(lower, "cuda runtime error (") || strings.Contains(lower, "thcudacheck fail file=") {
		legacyCode(t, line, add)
	}
	if !ascii || strings.Contains(lower, "cuda") && strings.Contains(lower, "error") || strings.Contains(lower, "code=") || strings.Contains(lower, "unknown error (") {
		numberedCode(modernCodeRE, t, line, add)
	}
	if strings.Contains(line, "cudaError_enum(0x") {
		hexCode(t, line, add)
	}
	if strings.Contains(line, " vs. 0)") || strings.Contains(line, " (0 vs. ") || strings.Contains(line, " == 0)") || strings.Contains(line, " (0 == ") {
		checkCode(t, line, add)
	}
	if strings.Contains(line, " error(") || strings.Contains(lower, " error ") && strings.Contains(line, " at ") || strings.Contains(line, "kernel execution error. (") {
		familyCode(t, line, add)
	}
	if strings.Contains(line, " error ") || strings.Contains(line, " error: ") {
		apiErrorCode(t, line, add)
	}
	if strings.Contains(line, "cuFFT") {
		cufftResultCode(t, line, add)
	}
	if strings.Contains(line, ") returned ") || strings.Contains(line, "eturn value ") {
		numberedCode(callResultRE, t, line, add)
	}
	if strings.Contains(line, "CUresult") || strings.Contains(line, "CU result") {
		numberedCode(cuResultRE, t, line, add)
	}
	if strings.Contains(line, "] Call to cu") {
		numberedCode(driverCallRE, t, line, add)
	}
	if strings.Contains(line, "init failure: ") || strings.Contains(line, " err: ") {
		numberedCode(probeResultRE, t, line, add)
	}
	if strings.Contains(line, "from cudaGetDeviceCount()") {
		numberedCode(deviceCountRE, t, line, func(s *Status, text string) {
			// CUDA failing to start with "out of memory" (WSL, some
			// containers) is no card run full: the device count stays
			// the cuda-unavailable report it is.
			if s.Class != "oom" {
				add(s, text)
			}
		})
	}
	norm := normalize(line)
	ctx := -1
	for _, p := range t.phrases {
		if seen[p.st] || !strings.Contains(norm, p.norm) {
			continue
		}
		if p.generic {
			if ctx < 0 {
				ctx = 0
				if hasErrorContext(norm) || cudaCallRE.MatchString(line) || cudaSourceRE.MatchString(line) || deviceLabelled(line, p.norm) {
					ctx = 1
				}
			}
			if ctx == 0 {
				continue
			}
		}
		add(p.st, strings.TrimSpace(p.norm))
	}
	if len(out) == 0 && strings.Contains(lower, "cuda error: ") {
		cutMessage(t, line, add)
	}
	return out
}

// cutRE is a CUDA error whose message the line ends in the middle of (a
// paste or a log cut short: "CUDA error: operation not permitt").
var cutRE = lazyre.New(`(?i)\bcuda error: ([a-z][a-z ()/-]{11,})$`)

// cutMessage finds the status whose message a cut-short line begins: the
// start must be long enough and belong to one status only.
func cutMessage(t *statusTable, line string, add func(*Status, string)) {
	m := cutRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return
	}
	start := normalize(m[1])
	start = start[:len(start)-1] // the last word may be cut
	var found *Status
	for _, p := range t.phrases {
		if !strings.HasPrefix(p.norm, start) || p.norm == start+" " {
			continue
		}
		if found != nil && found != p.st {
			// "operation not permitt" begins 800's message and two of
			// graph capture's: PyTorch cuts its own messages, and the
			// statuses it names by message are those of a class.
			if found = preferred(found, p.st, true); found == nil {
				return
			}
			continue
		}
		found = p.st
	}
	add(found, strings.TrimSpace(m[0]))
}

// preferred picks between two statuses a number or a cut-off message
// could name: a common status over an obscure one; with classWins, one of
// a class over one of none; of two that surface as the same class, the
// first in the enum (the older, better known one); nil when the two stay
// apart.
func preferred(a, b *Status, classWins bool) *Status {
	switch {
	case a.Obscure != b.Obscure:
		if a.Obscure {
			return b
		}
		return a
	case classWins && (a.Class == "") != (b.Class == ""):
		if a.Class == "" {
			return b
		}
		return a
	case a.Class != "" && a.Class == b.Class:
		if b.Code < a.Code {
			return b
		}
		return a
	}
	return nil
}

// lowerASCII is s with its ASCII letters in lower case, and whether s is
// all ASCII; s itself when it has no upper-case letter.
func lowerASCII(s string) (string, bool) {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			ascii = false
		} else if c >= 'A' && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s, ascii
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b), ascii
}

func legacyCode(t *statusTable, line string, add func(*Status, string)) {
	if m := legacyCodeRE.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1] + m[2])
		if s, ok := t.byCode[n]; ok && n >= 100 {
			add(s, m[0])
		} else if s, ok := t.byLegacy[n]; ok {
			add(s, m[0])
		}
	}
}

// numberedCode reads the CUDA status whose number re's first match holds
// in whichever of its groups took part (each alternative of re captures
// the number in a group of its own; the others stay empty).
func numberedCode(re *lazyre.Regexp, t *statusTable, line string, add func(*Status, string)) {
	if m := re.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(strings.Join(m[1:], ""))
		if s, ok := t.byCode[n]; ok {
			add(s, strings.TrimSpace(m[0]))
		}
	}
}

// checkRE is a check macro's comparison of a result with success, as
// glog's CHECK_EQ prints it (Caffe, MXNet): "Check failed: error ==
// cudaSuccess (2 vs. 0)", "result == ncclSuccess (1 vs. 0)", and for the
// math libraries "(cufftPlanMany(...)) == CUFFT_SUCCESS (2 vs. 0)".
// The success value stands on either side of a glog CHECK_EQ, whose values
// follow in the same order: "error == cudaSuccess (2 vs. 0)", and
// "cudaSuccess == cudaStat (0 vs. 35)" (PaddlePaddle's hl_cuda_device.cc).
// Other check macros print the two values joined by the operator they
// compared with: "cuLinkAddFile_v2(...) == CUDA_SUCCESS (218 == 0)"
// (HeavyDB's CHECK_EQ).
var checkRE = lazyre.New(`\b(cudaSuccess|CUDA_SUCCESS|ncclSuccess|CU(?:BLAS|DNN|SOLVER|SPARSE|RAND)_STATUS_SUCCESS|CUFFT_SUCCESS)(?: \((\d{1,4}) (?:vs\.|==) 0\)| == .{1,200}? \(0 (?:vs\.|==) (\d{1,4})\))`)

// checkCode reads the failed result's number. A CUDA number is taken only
// where the numbering before CUDA 10.1 and after it agree (both name the
// same status, or only one has it), as a check macro's log does not say
// which release printed it.
func checkCode(t *statusTable, line string, add func(*Status, string)) {
	m := checkRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	n, _ := strconv.Atoi(m[2] + m[3])
	var s *Status
	switch m[1] {
	case "cudaSuccess", "CUDA_SUCCESS":
		if s = eitherNumbering(t, n); s == nil {
			return
		}
	case "ncclSuccess":
		s = t.libCode["nccl"][n]
	case "CUFFT_SUCCESS":
		s = t.libCode["cufft"][n]
	default: // CUBLAS_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS, ...: the family is the name's first word
		s = t.libCode[strings.ToLower(strings.TrimSuffix(m[1], "_STATUS_SUCCESS"))][n]
	}
	add(s, m[0])
}

// eitherNumbering is the CUDA status numbered n where the log does not say
// which release printed it: taken only where the numbering before CUDA
// 10.1 and after it agree (both name the same status, or only one has it,
// or preferred picks one); nil otherwise.
func eitherNumbering(t *statusTable, n int) *Status {
	s, l := t.byCode[n], t.byLegacy[n]
	switch {
	case s == nil:
		return l
	case l == nil || l == s:
		return s
	}
	return preferred(s, l, false)
}

// apiErrorRE is a CUDA runtime or driver call named with the error number
// it failed with, as bindings that keep no table of names print it
// (Knet.jl's "cudart.cudaSetDevice error 10", "cuMemAlloc_v2 error: 2").
// The call must be named; the number may come from either numbering. A
// call's name goes on in lower case after its capital (cuMemAlloc,
// cudaSetDevice), which keeps out the libraries named in capitals
// ("cuBLAS error 3" is a cuBLAS status, read by its own family).
var apiErrorRE = lazyre.New(`\bcu(?:da)?[A-Z][a-z]\w*(?:_v\d)? error:? (\d{1,3})(?:\D|$)`)

func apiErrorCode(t *statusTable, line string, add func(*Status, string)) {
	if m := apiErrorRE.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		add(eitherNumbering(t, n), strings.TrimSpace(m[0]))
	}
}

// familyCodeRE is a status printed by number after its family's name, as
// PaddlePaddle's build_nvidia_error_msg does (paddle/phi/core/enforce.h,
// paddle/fluid/platform/enforce.h before 2.3): "CUBLAS error(3). ",
// "CUDNN error(4), CUDNN_STATUS_INTERNAL_ERROR. ", "NCCL error(2), ...",
// "CU error(2). " for a driver CUresult. Its hint names the status only
// when the library's message table loaded, so the number has to speak.
//
// The second form is a library's status by number before the place it was
// checked, as llama.cpp's ggml-cuda.cu CUBLAS_CHECK printed it in 2023
// ("cuBLAS error %d at %s:%d: %s"): "cuBLAS error 15 at ggml-cuda.cu:7956:
// the requested functionality is not supported". The CUDA runtime's own
// "CUDA error 2 at ..." is numberedCode's; the file:line is required, so a
// count ("cuDNN error 3 times") is no status.
//
// The third form is DeepSpeed's GEMM wrappers (csrc/transformer and
// csrc/includes cublas_wrappers), which print the cublasStatus_t of a
// failed cublasGemmEx by number with the GEMM's sizes: "!!!! kernel
// execution error. (m: 768, n: 4608, k: 3072, error: 13)".
var familyCodeRE = lazyre.New(`\b(CU|CUDA|CUDNN|CUBLAS|CURAND|CUSOLVER|CUFFT|CUSparse|NCCL) error\((\d{1,4})\)|\b(?i:(cuBLAS|cuDNN|cuRAND|cuSOLVER|cuFFT|cuSPARSE|NCCL)) error (\d{1,4}) at \S+:\d+|kernel execution error\. \(m: \d+, n: \d+, k: \d+, error: (\d{1,2})\)`)

func familyCode(t *statusTable, line string, add func(*Status, string)) {
	for _, m := range familyCodeRE.FindAllStringSubmatch(line, -1) {
		n, _ := strconv.Atoi(m[2] + m[4] + m[5])
		family := m[1] + m[3]
		if m[5] != "" {
			family = "cublas"
		}
		switch f := strings.ToLower(family); f {
		case "cu", "cuda":
			add(t.byCode[n], m[0])
		default:
			add(t.libCode[f][n], m[0])
		}
	}
}

// callResultRE is the number a named CUDA runtime or driver call returned,
// as C and C++ wrappers print it when they have no name for it: "Return
// value 46 from 'cudaStreamCreate(&kernel_stream)'", OptiX's
// "cudaDriver().CuMemcpyDtoHAsync( dstHost, ... ) returned (702): Launch
// timeout", "cudaMalloc(&p, n) returned 2". The call must be named: a bare
// "returned 2" is no CUDA result.
var callResultRE = lazyre.New(`(?:\b[Cc]u(?:da)?[A-Z]\w*\(.{0,200}?\)\s+returned\s+\(?(\d{1,3})\)?(?:\D|$)|\b[Rr]eturn value (\d{1,3}) from '?[Cc]u(?:da)?[A-Z]\w*\()`)

// cuResultRE is a driver API result printed by its type's name and its
// number, as wrappers around the virtual-memory and context calls log it
// when they keep no table of names: "CUresult error  result=2
// file=csrc/torch_memory_saver.cpp func=cu_mem_create", "CUresult = 700",
// "CUresult: 2". A CUresult numbers its statuses as the runtime's
// cudaError_t does since CUDA 10.1 (2 out of memory, 700 illegal address),
// so the number reads through the runtime's table. The type's name is
// required: a bare "result=2" is no CUDA status.
var cuResultRE = lazyre.New(`\bCUresult\b(?:\s+error)?\s*(?:result\s*)?[=:]?\s*\(?(\d{1,3})\)?(?:\D|$)|\bCU result\s*[=:]?\s*\(?(\d{1,3})\)?(?:\D|$)`)

// driverCallRE is a driver API call's result as Numba prints it when its
// table has no name for the number ("LinkerError: [218] Call to
// cuLinkAddData results in UNKNOWN_CUDA_ERROR"): the number in brackets
// before the call is the CUresult, read through the runtime's table as
// cuResultRE's is.
var driverCallRE = lazyre.New(`\[(\d{1,3})\] Call to cu[A-Z]\w* results in\b`)

// probeResultRE is the number a GPU discovery probe got back from the
// driver or runtime, as Ollama's gpu_info_cudart.c and gpu_info_nvcuda.c
// log it ("cuInit err: 999", "cudaSetDevice err: 35", "Unable to load
// cudart library ...libcuda.so.575.57.08: cuda driver library init
// failure: 3", "nvcuda init failure: 999"). The call, or the CUDA library
// the probe loaded, must be named; NVML's init failures number another
// table and are left out.
var probeResultRE = lazyre.New(`\bcu(?:da)?[A-Z]\w* err: (\d{1,3})\b|\b(?:cuda driver library|cudart|nvcuda) init failure: (\d{1,3})\b`)

// deviceCountRE is the status PyTorch's device count failed with:
// "Unexpected error from cudaGetDeviceCount(). ... Error 804: forward
// compatibility was att" (the number read even where the text after it
// was cut off).
var deviceCountRE = lazyre.New(`\bfrom cudaGetDeviceCount\(\)\..{0,200}?\bError (\d{1,3}):`)

func hexCode(t *statusTable, line string, add func(*Status, string)) {
	if m := hexCodeRE.FindStringSubmatch(line); m != nil {
		if n, err := strconv.ParseInt(m[1], 16, 32); err == nil {
			if s, ok := t.byCode[int(n)]; ok {
				add(s, m[0])
			}
		}
	}
}

// StatusAnchors are fixed texts that any spelling the status layer reads
// contains, for the engine's pre-filter.
func (k *KB) StatusAnchors() []string {
	out := []string{"cudaError", "CUDA_ERROR_", "CUBLAS_STATUS_", "CUDNN_STATUS_", "CUSOLVER_STATUS_", "CUSPARSE_STATUS_",
		"CURAND_STATUS_", "CUFFT_", "ncclUnhandled", "ncclSystemError", "ncclInternalError", "ncclInvalid", "ncclRemoteError",
		"CUDA error", "CUDA Error", "cuda error", "CUDA ERROR", "Cuda error", "cuda runtime error", "THCudaCheck", "GPUassert",
		"CudaAPIError", "CUDAError", "cudaSuccess (", "ncclSuccess (", "CUDA_SUCCESS (", "STATUS_SUCCESS (", "CudaError", "CUDA driver error", "cudaError_enum", "UNKNOWN ERROR (", "Cuda Runtime (", "Cuda Driver (",
		"] Call to cu", "CU result", "CU error(", "CUDNN error(", "CUBLAS error(", "CURAND error(", "CUSOLVER error(", "CUFFT error(", "CUSparse error(", "NCCL error(", "cuBLAS error ", "CUBLAS error ", "cuDNN error ", "CUDNN error ", "error: (-217)", "(CUDA) ", ") returned ", "eturn value ",
		" init failure: ", " err: ", " in file ",
		// TensorFlow/XLA cuFFT steps logged with their result (status_cufft.go).
		"cuFFT plan", "cuFFT batched", "cuFFT routine"}
	// A call's error number (apiErrorRE): the anchor holds its first digit,
	// which keeps every line that merely says "error" out.
	for d := '1'; d <= '9'; d++ {
		out = append(out, " error "+string(d), " error: "+string(d))
	}
	if k.status == nil {
		return out
	}
	seen := map[string]bool{}
	// A runtime name's words without their prefix, as wrappers print
	// them ("CudaInvalidResourceHandle", "CUDAError InsufficientDriver"),
	// where long enough not to be a common word.
	var words []string
	for _, st := range k.status.byName {
		if w := strings.TrimPrefix(st.Name, "cudaError"); w != st.Name && len(w) >= 10 && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	sort.Strings(words)
	out = append(out, words...)
	for _, p := range k.status.phrases {
		if p.generic || p.text == "" || seen[p.text] {
			continue
		}
		seen[p.text] = true
		// The whole message as printed, less its first letter (a sentence
		// may capitalise it): a single word of it ("process", "invalid")
		// would make most lines of a training log candidates.
		if len(p.text) > 12 {
			out = append(out, p.text[1:])
		}
	}
	return out
}

// statusMatches are the status layer's hits on line i, and on line i joined
// with the next when a message was wrapped across them, as matches of
// the statuses' classes.
func (k *KB) statusMatches(lines []string, i int) []Match {
	var out []Match
	for _, h := range k.StatusesAt(lines, i) {
		if h.Status.Class == "" {
			continue
		}
		c, ok := k.byID[h.Status.Class]
		if !ok {
			continue
		}
		// One fact per status: a CUDA error keeps the name the rest of
		// the engine already reads (cuda_error); a library's is its status.
		g := map[string]string{"status": h.Status.Name}
		if h.Status.Family == "cuda" {
			g = map[string]string{"cuda_error": h.Status.Name}
		}
		out = append(out, Match{Class: c, Signature: k.status.sigs[c.ID], Groups: g})
	}
	return out
}

// StatusesAt is Statuses of lines[i], with the statuses found only where
// line i is read joined with the lines after it (see joinsWithNext): a
// message a terminal or a paste wrapped.
func (k *KB) StatusesAt(lines []string, i int) []StatusHit {
	if k.status == nil {
		return nil
	}
	hits := k.Statuses(lines[i])
	var next []StatusHit
	for j, joined := range joinsWithNext(lines, i) {
		if j == 0 {
			next = k.Statuses(lines[i+1])
		}
		for _, h := range k.Statuses(joined) {
			if !containsStatus(hits, h.Status) && !containsStatus(next, h.Status) && !k.borrowsContext(h, lines[i]) {
				hits = append(hits, h)
			}
		}
	}
	return hits
}

// borrowsContext reports a generic message ("out of memory", "unknown
// error") that line, read alone, holds whole but does not count for want
// of an error context, found only because the joined reading lent it the
// context of the next line. A wrapped error puts its context first
// ("CUDA error:" / "out of memory"); a message that ends one line before
// another line's "CUDA error" is a separate sentence, such as vLLM's
// advice "If you are running out of memory, consider decreasing
// gpu_memory_utilization" logged just before an unrelated failure.
func (k *KB) borrowsContext(h StatusHit, line string) bool {
	norm := ""
	for _, p := range k.status.phrases {
		if !p.generic || p.st != h.Status || strings.TrimSpace(p.norm) != h.Text {
			continue
		}
		if norm == "" {
			norm = normalize(foldWidth(line))
		}
		if strings.Contains(norm, p.norm) {
			return true
		}
	}
	return false
}

func containsStatus(hs []StatusHit, s *Status) bool {
	for _, h := range hs {
		if h.Status == s {
			return true
		}
	}
	return false
}

// foldWidth writes the full-width punctuation of Chinese and Japanese
// input methods as ASCII ("RuntimeError：CUDA error，unknown error"): the
// status layer's numbered contexts ("CUDA error：700") and its phrases are
// written with ASCII punctuation. Full-width letters and digits are left
// as they are: input methods give ASCII ones in code and error text.
func foldWidth(line string) string {
	i := strings.IndexFunc(line, fullWidthPunct)
	if i < 0 {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	b.WriteString(line[:i])
	for _, r := range line[i:] {
		switch {
		case r == '\u3000':
			b.WriteByte(' ')
		case r == '、':
			b.WriteByte(',')
		case r == '。':
			b.WriteByte('.')
		case fullWidthPunct(r):
			b.WriteRune(r - 0xFF01 + '!')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fullWidthPunct: the ideographic space, comma and full stop, and the
// full-width forms of ASCII's punctuation (U+FF01-FF5E less letters and
// digits).
func fullWidthPunct(r rune) bool {
	switch {
	case r == '\u3000' || r == '、' || r == '。':
		return true
	case r < 0xFF01 || r > 0xFF5E:
		return false
	}
	a := r - 0xFF01 + '!'
	return !(a >= '0' && a <= '9' || a >= 'A' && a <= 'Z' || a >= 'a' && a <= 'z')
}
