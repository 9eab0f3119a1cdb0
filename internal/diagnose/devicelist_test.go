package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// TestCPUOnlyDeviceList: TensorFlow's device_lib listing that closes after
// its CPU entry is a GPU TensorFlow did not register; a listing with a GPU
// entry, or one whose end the paste cut off, is not.
func TestCPUOnlyDeviceList(t *testing.T) {
	e := New(kb.MustDefault())
	cpuOnly := "from tensorflow.python.client import device_lib\nprint(device_lib.list_local_devices())\n\n" +
		"[name: \"/device:CPU:0\"\ndevice_type: \"CPU\"\nmemory_limit: 268435456\nlocality {\n}\nincarnation: 17504734730771000338\nxla_global_id: -1\n]\n"
	// The indented form a REPL prints.
	indented := "[name: \"/device:CPU:0\"\n device_type: \"CPU\"\n memory_limit: 268435456\n locality {\n }\n incarnation: 16820838733360620967]\n"
	for name, log := range map[string]string{"plain": cpuOnly, "indented": indented} {
		out := explainText(t, e, log)
		if len(out) == 0 || out[0].Class != "cuda-unavailable" {
			t.Errorf("%s: got %+v, want cuda-unavailable", name, out)
		}
	}
	quiet := map[string]string{
		"with a GPU": "[name: \"/device:CPU:0\"\ndevice_type: \"CPU\"\nmemory_limit: 268435456\nincarnation: 1775\n, name: \"/device:GPU:0\"\ndevice_type: \"GPU\"\nmemory_limit: 10990990540\nlocality {\n  bus_id: 1\n}\nincarnation: 4093\nphysical_device_desc: \"device: 0, name: NVIDIA GeForce RTX 3080, pci bus id: 0000:01:00.0, compute capability: 8.6\"\n]\n",
		"cut off":    "[name: \"/device:CPU:0\"\ndevice_type: \"CPU\"\nmemory_limit: 268435456\n",
	}
	for name, log := range quiet {
		if out := explainText(t, e, log); len(out) != 0 {
			t.Errorf("%s: got %+v, want nothing", name, out)
		}
	}
	if _, ok := cpuOnlyDeviceList([]string{`want = '[name: "/device:CPU:0"'`, "]"}); ok {
		t.Error("a quoted device name outside a listing was read as one")
	}
}
