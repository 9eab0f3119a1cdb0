package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// XidEvent is one NVIDIA Xid report from the kernel log.
type XidEvent struct {
	Xid int `json:"xid"`
	// PCI is the device as the driver printed it ("PCI:0000:2b:00").
	PCI     string `json:"pci,omitempty"`
	Message string `json:"message,omitempty"`
	// Line is the log line as read.
	Line string `json:"line"`
}

// XidNeedles select kernel-log lines worth parsing.
var XidNeedles = []string{"NVRM: Xid", "fallen off the bus"}

var (
	xidRe    = lazyre.New(`NVRM: Xid \(((?:PCI:)?[0-9a-fA-F:.]+)\)[^:]*: (\d+),?\s*(.*)`)
	offBusRe = lazyre.New(`NVRM: GPU ([0-9a-fA-F:.]+): GPU has fallen off the bus`)
)

// ParseXids extracts Xid events from kernel-log lines in any of the forms
// /dev/kmsg, dmesg and journalctl print.
func ParseXids(lines []string) []XidEvent {
	var out []XidEvent
	for _, l := range lines {
		msg := l
		// /dev/kmsg: "pri,seq,usec,flags;message"
		if i := strings.IndexByte(msg, ';'); i > 0 && i < 40 && strings.Count(msg[:i], ",") >= 3 {
			msg = msg[i+1:]
		}
		if m := xidRe.FindStringSubmatch(msg); m != nil {
			n, err := strconv.Atoi(m[2])
			if err != nil || n <= 0 || n > 100000 {
				continue
			}
			out = append(out, XidEvent{Xid: n, PCI: m[1], Message: strings.TrimSpace(m[3]), Line: strings.TrimSpace(l)})
			continue
		}
		if m := offBusRe.FindStringSubmatch(msg); m != nil {
			out = append(out, XidEvent{Xid: 79, PCI: m[1], Message: "GPU has fallen off the bus", Line: strings.TrimSpace(l)})
		}
	}
	return out
}

// xidInfo is what an Xid means for an ML job and what to do (NVIDIA's Xid
// catalog; knowledge base §6).
type xidInfo struct {
	severity report.Severity
	meaning  string
	action   string
}

var xidTable = map[int]xidInfo{
	13:  {report.Info, "graphics engine exception: a kernel faulted (out-of-range access, illegal instruction); usually an application bug", "restart the application; debug it with compute-sanitizer"},
	31:  {report.Info, "GPU memory page fault: an application accessed an invalid address (pairs with 'an illegal memory access was encountered')", "restart the application; debug it with compute-sanitizer"},
	43:  {report.Info, "an application hit a software fault and its channel was reset; other applications are unaffected", "restart the application"},
	45:  {report.Info, "preemptive cleanup after a process was killed or after another error", "look for another Xid next to it"},
	48:  {report.Error, "double-bit (uncorrectable) ECC error in GPU memory", "stop work on the GPU and reset it: nvidia-smi -r -i <gpu> (or reboot)"},
	61:  {report.Error, "internal micro-controller breakpoint", "reset the GPU: nvidia-smi -r -i <gpu>"},
	62:  {report.Error, "internal micro-controller halt", "reset the GPU: nvidia-smi -r -i <gpu>"},
	63:  {report.Warning, "a memory row was marked for remapping (or a page for retirement); it takes effect after a GPU reset", "reset the GPU when convenient: nvidia-smi -r -i <gpu>"},
	64:  {report.Error, "memory row remapping (page retirement) failed", "reset the GPU; if it repeats, the board needs service"},
	74:  {report.Error, "NVLink error: collectives over NVLink fail or hang", "reset the GPUs; check nvidia-smi nvlink -s; contact your hardware support if it repeats"},
	79:  {report.Error, "the GPU has fallen off the bus: it no longer answers over PCIe and every CUDA call fails", "reboot the node; if it repeats, check power, cooling and the PCIe slot"},
	92:  {report.Warning, "high single-bit ECC error rate", "watch nvidia-smi -q -d ECC; plan a reset"},
	94:  {report.Warning, "contained uncorrectable memory error: one application was affected", "restart the affected application; reset the GPU when convenient"},
	95:  {report.Error, "uncontained uncorrectable memory error: every application on the GPU is affected", "reset the GPU: nvidia-smi -r -i <gpu> (reboot if MIG is off)"},
	109: {report.Error, "context switch timeout", "reset the GPU: nvidia-smi -r -i <gpu>"},
	119: {report.Error, "GSP firmware did not answer the driver (RPC timeout); nvidia-smi may hang", "reset the GPU or reboot the node"},
	120: {report.Error, "GSP firmware error", "reset the GPU or reboot the node"},
	136: {report.Error, "link training failed", "reset the GPU; contact hardware support if it repeats"},
	140: {report.Error, "unrecovered ECC error", "reset the GPU: nvidia-smi -r -i <gpu>"},
	143: {report.Error, "GPU initialisation error", "reset the GPU; contact hardware support if it repeats"},
	154: {report.Warning, "the GPU's required recovery action changed (see the Xid before it)", "run nvidia-smi -q and follow 'GPU Recovery Action'"},
	158: {report.Error, "GPU fatal timeout", "reset the GPU: nvidia-smi -r -i <gpu>"},
}

// XidMeaning says what an Xid means, its severity and what to do; unknown
// Xids are informational.
func XidMeaning(xid int) (report.Severity, string, string) {
	if xid >= 144 && xid <= 150 {
		return report.Error, "NVLink5 error", "reset the GPUs; contact hardware support if it repeats"
	}
	if i, ok := xidTable[xid]; ok {
		return i.severity, i.meaning, i.action
	}
	return report.Info, fmt.Sprintf("Xid %d", xid), "look it up in NVIDIA's Xid catalog"
}
