package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A comparison between units running the same program makes the unit the
// cause of the access fault it shows; a comparison between GPU models, or a
// unit ruled out, keeps the surface class.
func TestHardwareUnitsRefine(t *testing.T) {
	e := New(kb.MustDefault())
	illegal := "RuntimeError: CUDA error: an illegal memory access was encountered\n"
	launch := "Cuda error in func 'neoscrypt_cpu_hash_k4_2stream' at line 1468 : unspecified launch failure.\n"
	for _, c := range []struct {
		name, log, want string
	}{
		{"only one rig", "Of my 4 minering rigs only one is crashing consistently.\n" + illegal, "hardware-fault"},
		{"one of the gpus", launch + "One of the GPUs on the node keeps crashing, always the same index.\n", "hardware-fault"},
		{"other gpus fine", illegal + "The same script runs fine on the other GPUs of the box.\n", "hardware-fault"},
		{"same hardware", "I get this error with an RTX 2070 Super; on the same hardware a RTX 3060 Ti works fine.\n" + illegal, "hardware-fault"},
		{"replaced riser", launch + "Replacing the riser fixed it.\n", "hardware-fault"},
		{"zh card swap", illegal + "换了张显卡没问题了，换的型号和之前一样的。\n", "hardware-fault"},
		{"error on one of my gpus", "I'm having this cuda error (err_no=30) issue on one of my gpu 2060 super.\n", "hardware-fault"},
		{"one of three lost", launch + "I got 3 gpu's on my system and one is lost from time to time.\n", "hardware-fault"},
		{"when overclocked", launch + "I suspect the oldest card may be susceptible to hard memory errors when overclocked.\n", "hardware-fault"},
		{"a gpu is lost", illegal + "Is there a way to reboot the whole system when a gpu is lost ?\n", "hardware-fault"},
		{"one of the gpus giving the error", illegal + "I keep on getting one of the GPUs giving this error, whatever the clocks.\n", "hardware-fault"},
		{"capitalised only on one card", "GPU 4: Critical error in main cuda loop ErrorIllegalAddress: While executing a kernel, the device encountered a load or store instruction on an invalid memory address.\nOnly happens on one card on one system any ideas?\n", "hardware-fault"},
		// Look-alikes that must keep the surface class.
		{"not on one of", illegal + "The error does not happen on one of my GPUs only: all of them fail.\n", "illegal-address"},
		{"one of the gpus used", illegal + "The error is raised while training on one of the GPUs I reserved.\n", "illegal-address"},
		{"not overclocked", launch + "My card is not overclocked at all, it runs at stock clocks.\n", "illegal-address"},
		{"lost connection", illegal + "Then the ssh connection was lost and the GPU went idle.\n", "illegal-address"},
		{"model comparison", illegal + "It works fine on an A100 but fails on the H100.\n", "illegal-address"},
		{"only one thread", illegal + "Only one kernel is launched per step.\n", "illegal-address"},
		{"replaced code", illegal + "Replacing the custom op with torch.gather fixed it.\n", "illegal-address"},
		{"one of the gpus it runs on", illegal + "The error is printed by one of the GPUs this job uses; which one changes every run.\n", "illegal-address"},
		{"driver wording alone", "While executing a kernel, the device encountered a load or store instruction on an invalid memory address.\n", "illegal-address"},
		{"not the card", illegal + "It is not that only one of my GPUs is crashing: all of them do.\n", "illegal-address"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := explainText(t, e, c.log)
			if len(fs) == 0 || fs[0].Class != c.want {
				t.Fatalf("got %+v, want %s", fs, c.want)
			}
		})
	}
}
