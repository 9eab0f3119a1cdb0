package nvml

import "strings"

// ccByName maps product-name fragments to compute capability, most specific
// first (NVIDIA's CUDA GPUs list). Used where the driver cannot be asked.
var ccByName = []struct {
	frag         string
	major, minor int
}{
	{"GB10", 12, 1},
	// Quadro RTX 3000-8000 (Turing) and RTX 4000-6000 Ada come before the
	// GeForce series fragments they contain ("RTX 5000" holds "RTX 50").
	{"ADA GENERATION", 8, 9}, {"RTX 6000 ADA", 8, 9}, {"RTX 5000 ADA", 8, 9}, {"RTX 4500 ADA", 8, 9}, {"RTX 4000 ADA", 8, 9},
	{"RTX 8000", 7, 5}, {"RTX 6000", 7, 5}, {"RTX 5000", 7, 5}, {"RTX 4000", 7, 5}, {"RTX 3000", 7, 5},
	{"RTX PRO", 12, 0}, {"RTX 50", 12, 0},
	{"GB300", 10, 3}, {"B300", 10, 3},
	{"GB200", 10, 0}, {"B200", 10, 0}, {"B100", 10, 0},
	{"GH200", 9, 0}, {"H200", 9, 0}, {"H100", 9, 0}, {"H800", 9, 0}, {"H20", 9, 0},
	{"L40", 8, 9}, {"L4", 8, 9}, {"RTX 40", 8, 9},
	{"A100", 8, 0}, {"A800", 8, 0}, {"A30", 8, 0},
	{"RTX A", 8, 6}, {"A6000", 8, 6}, {"A5000", 8, 6}, {"A4000", 8, 6}, {"A40", 8, 6}, {"A10", 8, 6}, {"A16", 8, 6}, {"A2", 8, 6}, {"RTX 30", 8, 6},
	{"T4", 7, 5}, {"RTX 20", 7, 5}, {"GTX 16", 7, 5}, {"QUADRO RTX", 7, 5}, {"TITAN RTX", 7, 5},
	{"V100", 7, 0}, {"TITAN V", 7, 0},
	{"P100", 6, 0}, {"P40", 6, 1}, {"P4", 6, 1}, {"QUADRO P", 6, 1}, {"GTX 10", 6, 1}, {"MX3", 6, 1}, {"TITAN XP", 6, 1},
	{"GTX TITAN X", 5, 2}, {"GTX 9", 5, 2}, {"M40", 5, 2}, {"M60", 5, 2}, {"GTX 75", 5, 0},
	{"GTX TITAN", 3, 5}, {"GTX 78", 3, 5}, {"GTX 7", 3, 0}, {"GTX 6", 3, 0},
	{"K80", 3, 7}, {"K40", 3, 5}, {"K20", 3, 5},
}

var ccByArch = map[string][2]int{
	"Kepler": {3, 5}, "Maxwell": {5, 2}, "Pascal": {6, 0}, "Volta": {7, 0}, "Turing": {7, 5},
	"Ampere": {8, 0}, "Ada Lovelace": {8, 9}, "Hopper": {9, 0},
}

// CCForName guesses the compute capability from a product name (and the
// architecture name nvidia-smi prints, as a fallback).
func CCForName(name, arch string) (major, minor int, ok bool) {
	// Users write "rtx 3090" and "Titan Xp" as often as the driver's spelling.
	name = strings.ToUpper(name)
	for _, e := range ccByName {
		if strings.Contains(name, e.frag) {
			return e.major, e.minor, true
		}
	}
	if v, found := ccByArch[strings.TrimSpace(arch)]; found {
		return v[0], v[1], true
	}
	return 0, 0, false
}
