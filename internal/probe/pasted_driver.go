package probe

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Reports name the driver the way people write, not only as nvidia-smi
// prints it: "host driver 470, container CUDA 12.1", "Nvidia Driver:
// 450.51.06", "my driver is 418.67", the package "nvidia-driver-525",
// "驱动版本：510.60.02"; and TensorFlow's diagnostics print the loaded
// kernel module's version ("kernel reported version is: 418.87.0"). The
// readers below take these into Facts.NVML.DriverVersion where no tool's
// "Driver Version:" line did, so the driver checks judge them as well.

var (
	// "driver 470", "Driver:450.51.06", "driver is 418.67", "nvidia-driver-525",
	// "drivers 525.85", "driver version is 470.82": the word, then an
	// optional "version", "is" or "was", then a driver number (3xx to
	// 6xx, the branches that have shipped). "cuda_driver.cc:271" is not
	// the word (the underscore joins it), "driver 11.4" is no driver
	// number, and "driver (found version 11040)" holds no number after
	// the word.
	proseDriverRE = lazyre.New(`(?i)\bdrivers?(?:[\s:=：-]+(?:version|ver\.?|is|was|of))*[\s:=：-]*v?([3-6]\d\d)((?:\.\d{1,3}){0,2})\b`)
	// "驱动版本：510.60.02", "驱动 470", "驱动是 525.85.12".
	cjkDriverRE = lazyre.New(`驱动(?:版本号?)?\s*(?:是|为|為|:|：)?\s*v?([3-6]\d\d)((?:\.\d{1,3}){0,2})\b`)
	// TensorFlow's cuda_diagnostics: the kernel module's version, which is
	// the driver that runs ("libcuda reported version" is the user-space
	// library's, which must match it).
	kernelReportedRE = lazyre.New(`kernel reported version is:?\s*"?([3-6]\d\d)((?:\.\d{1,3}){0,2})\b`)
	// A line that names a driver as a requirement or an advice rather than
	// as the machine's: "CUDA 12 needs driver 525 or newer", "upgrade the
	// driver to 535".
	driverAdviceRE = lazyre.New(`(?i)\b(?:needs?|required?|requires|requirement|minimum|at least|upgrade|update|install(?:ing)? (?:the )?(?:latest|newer)|or (?:later|newer|higher|above))\b|>=|≥`)
)

// proseDriverWords are the words the prose driver readers need past the line gate.
var proseDriverWords = []string{"driver", "reported version"}

// proseDriver is a driver version stated in words on w's line, "" when it
// states none. A version of the major alone ("driver 470") is returned as
// that number; driverOlder compares it by the major only. The kernel
// module's version is TensorFlow's reading, never advice; the others are
// dropped on a line that gives the driver as a requirement.
func proseDriver(w lineWords) (string, bool) {
	if !w.version && !w.digit {
		return "", false
	}
	words := w.may(proseDriverWords)
	readers := []struct {
		re     *lazyre.Regexp
		may    bool
		advice bool
	}{
		{kernelReportedRE, words, false},
		{proseDriverRE, words, true},
		{cjkDriverRE, strings.Contains(w.line, "驱动"), true},
	}
	for _, r := range readers {
		m := match(r.may, r.re, w.line)
		if m == nil {
			continue
		}
		if r.advice && driverAdviceRE.MatchString(w.line) {
			return "", false
		}
		return m[1] + m[2], true
	}
	return "", false
}

// driverOlder: the driver version s is older than min. A version that
// names the major alone ("470") is older only when its major is: "525" may
// be 525.60.13 or newer.
func driverOlder(s string, min DriverVersion) bool {
	v, ok := ParseDriverVersion(s)
	if !ok {
		return false
	}
	if !strings.Contains(s, ".") {
		return v[0] < min[0]
	}
	return v.Less(min)
}
