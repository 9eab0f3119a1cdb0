package diagnose

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// deviceListTriggers let the first entry of TensorFlow's device listing
// (device_lib.list_local_devices(), printed as a list of DeviceAttributes
// protos) reach the parser: `[name: "/device:CPU:0"`.
var deviceListTriggers = []string{`name: "/device:CPU:0"`}

// deviceListLimit bounds how far after its CPU entry a listing is read for
// the entries that follow (a GPU entry comes within a dozen lines).
const deviceListLimit = 40

// cpuOnlyDeviceList finds a TensorFlow device listing that closes after its
// CPU entry: the list's "]" comes before any entry of device_type "GPU".
// The entry must open the list at the start of its line, as the listing
// prints it; a device name quoted inside code is no listing.
// It returns the index of the listing's first line. A listing that names a
// GPU, or whose end is not in the log, says nothing.
func cpuOnlyDeviceList(texts []string) (int, bool) {
	for i, t := range texts {
		at := strings.Index(t, deviceListTriggers[0])
		if at < 0 || strings.TrimSpace(t[:at]) != "[" {
			continue
		}
		for j := i; j < len(texts) && j < i+deviceListLimit; j++ {
			l := texts[j]
			if j > i && strings.Contains(l, "name: \"/device:") || strings.Contains(l, `device_type: "GPU"`) {
				break // a second entry: another device follows the CPU
			}
			if strings.HasSuffix(strings.TrimSpace(l), "]") {
				return i, true
			}
		}
	}
	return 0, false
}

// saysDeviceList: some line may open a TensorFlow device listing (a cheap
// test before the source's facts are read).
func saysDeviceList(lines []logparse.Line) bool {
	for _, l := range lines {
		if strings.Contains(l.Text, deviceListTriggers[0]) {
			return true
		}
	}
	return false
}

// deviceListFinding: a TensorFlow device listing holding the CPU alone is
// the failure itself when nothing else in the input is (the caller asks
// only then): TensorFlow registered no GPU, whether its build has no CUDA
// (native Windows after 2.10) or it could not load the CUDA libraries.
func deviceListFinding(k *kb.KB, name string, lines []logparse.Line, texts []string) (report.Finding, bool) {
	i, ok := cpuOnlyDeviceList(texts)
	if !ok {
		return report.Finding{}, false
	}
	return standingFinding(k, "cuda-unavailable", name, "TensorFlow's device list holds the CPU alone: it registered no GPU", lines[i])
}
