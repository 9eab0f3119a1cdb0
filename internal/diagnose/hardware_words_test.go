package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A report that puts the failure down to the hardware makes hardware-fault
// the root of the access fault or unknown error it shows, with that line as
// evidence; a report that rules the hardware out, or says nothing of it,
// keeps the surface class.
func TestHardwareWordsRefine(t *testing.T) {
	e := New(kb.MustDefault())
	illegal := "RuntimeError: CUDA error: an illegal memory access was encountered\n"
	unknown := "RuntimeError: CUDA error: unknown error\n"
	for _, c := range []struct {
		name, log, want string
		line            int
	}{
		// rwth-i6/returnn issue 1520: the maintainer's own note above the log.
		{"stated", "It's likely a hardware issue.\n" + unknown, "hardware-fault", 1},
		{"faulty card", illegal + "Swapping slots showed the faulty card is GPU 2.\n", "hardware-fault", 2},
		{"undervolt", illegal + "it's my undervolting of my graphics card\n", "hardware-fault", 2},
		// A row remap beside the fault (Xid 63); an application's own Xid 13
		// or 31 is no hardware evidence.
		{"row remap", illegal + "[ 12.3] NVRM: Xid (PCI:0000:61:00): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.\n", "hardware-fault", 2},
		{"xid 13", illegal + "[ 12.3] NVRM: Xid (PCI:0000:61:00): 13, pid=1, Graphics SM Warp Exception on (GPC 7, TPC 4, SM 0): Out Of Range Address\n", "illegal-address", 0},
		{"one unit", "RuntimeError: CUDA error: unspecified launch failure\nIt only happens on GPU 3, the other seven cards run the same job fine.\n", "hardware-fault", 2},
		{"negated", "I don't think it is a hardware issue, the card passes gpu-burn.\n" + illegal, "illegal-address", 0},
		{"ruled out", "Ruled out: hardware problems, drivers, memory.\n" + illegal, "illegal-address", 0},
		{"silent", illegal, "illegal-address", 0},
		// A misaligned address the report puts down to the card's memory;
		// the same error with the memory ruled out keeps its class.
		{"memory broken", "RuntimeError: CUDA error: misaligned address\nI have 8g of video memory, it should be enough, I suspect that my video memory is broken.\n", "hardware-fault", 2},
		{"memory not broken", "RuntimeError: CUDA error: misaligned address\nThe card passed a memory test, so I do not think the video memory is broken.\n", "misaligned-address", 0},
		// The link's and the heat's traces beside the fault; a card at
		// work within its limits (80-89 °C) or a temperature ruled out is
		// none.
		{"corrected aer", "CUDA error in func 'search' at line 346 : unknown error.\n[74785.660366] pcieport 0000:00:02.0: AER: Corrected error received: id=0010\n", "hardware-fault", 2},
		{"hot table row", illegal + "|  0%   92C    P1             38W /  575W |     509MiB /  32607MiB |     88%      Default |\n", "hardware-fault", 2},
		{"hot prose", illegal + "When training, the GPU temperature reaches 97C.\n", "hardware-fault", 2},
		{"warm table row", illegal + "|  0%   81C    P1             38W /  575W |     509MiB /  32607MiB |     88%      Default |\n", "illegal-address", 0},
		{"warm prose", illegal + "the gpu temperature was 83 °C the whole time\n", "illegal-address", 0},
		{"heat ruled out", illegal + "the GPU temperature never goes above 92C, so it is not heat\n", "illegal-address", 0},
		{"gone from smi", "The GPU disappears from nvidia-smi after a few hours of training.\n", "hardware-fault", 1},
		{"missing import", illegal + "the gpu module is missing from the system path\n", "illegal-address", 0},
		// The words apply to the faults a GPU hides behind, not to any error.
		{"other class", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\nmaybe a faulty card?\n", "oom", 0},
		// An error nothing classifies, put down to the card's clocks
		// (fireice-uk/xmr-stak issue 2343).
		{"unclassified", "[CUDA] ERROR gpu 0: ./xmr-stak-2.10.1/xmrstak/backend/nvidia/nvcc_code/cuda_extra.cu: 487\n+125 on Core GPU Boost Clock\n", "hardware-fault", 2},
		// The statement alone, where nothing else in the input is a
		// failure (ai4d-iasc/trixie issue 38).
		{"statement alone", "for some reason one of the GPUs on cn110 is not working as it should. Could someone please drain this node and check on it?\n", "hardware-fault", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := explainText(t, e, c.log)
			if len(fs) == 0 || fs[0].Class != c.want {
				t.Fatalf("got %+v, want %s", fs, c.want)
			}
			if c.line == 0 {
				return
			}
			found := false
			for _, ev := range fs[0].Evidence {
				found = found || ev.Line == c.line
			}
			if !found {
				t.Errorf("line %d is not evidence: %+v", c.line, fs[0].Evidence)
			}
		})
	}
}

// A statement that rules the hardware out, alone in the input, is no
// finding.
func TestHardwareDeniedAloneIsQuiet(t *testing.T) {
	e := New(kb.MustDefault())
	for _, log := range []string{
		"I don't think it is a hardware issue, the card passes gpu-burn.\n",
		"The riser is not faulty, I swapped it and the power supply is fine too.\n",
		"Training finished; the card was overclocked by +100 MHz the whole time and nothing failed.\n",
		"[ 12.3] NVRM: Xid (PCI:0000:61:00): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.\n",
	} {
		if fs := explainText(t, e, log); len(fs) != 0 && fs[0].Class == "hardware-fault" {
			t.Errorf("%q: got %+v", log, fs[0])
		}
	}
}

func TestHardwareStated(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"It IS indeed some sort of Hardware issue,", true},
		{"the riser is broken", true},
		{"an unstable overclock on one card", true},
		{"✅ Underclocking GPU, raising voltages etc.. (in case stock overclock would be unstable)", false},
		{"this is not a hardware problem", false},
		{"a hardware-accelerated decoder", false},
		{"broken pipe", false},
		{"Overclock: 100% power, +125 MHz core, +600 memory", true},
		{"All cards are set to 80% power and +600 memory clock (resulting in 4404MHz)", true},
		{"+125 on Core GPU Boost Clock", true},
		{"all six cards are overclocked", true},
		{"With my 1070 I can use -i 17.6 without problem, but I don't overclock.", false},
		{"the cards are not overclocked", false},
		{"g++ -O2 -o main main.cpp +50 core files", false},
		{"GPU clocks: 1590 MHz core, 5001 MHz memory", false},
		{"CUDA_VISIBLE_DEVICES=0 python train.py --lr 1e-4 --mem 16", false},
		{"2080ti 魔改的22g 跑起来后会报错 重启机器才行 我感觉把我显卡给跑坏咯", true},
		{"换了张显卡没问题了，应该就是显卡出问题了。", true},
		{"这应该是硬件问题", true},
		{"我觉得不是显卡坏了，换了驱动就好了", false},
		{"使用一张3090显卡，参数设置如下", false},
		{"显卡一直在16度的空调房", false},
		{"测试过了，显卡没有问题", false},
		{"When an NVIDIA GPU 3070 Ti crashes due to high OC values .", true},
		{"the errors went away, they were caused by the overclock", true},
		{"the crash is not due to the overclock, it happens at stock clocks", false},
		{"the loss jumped due to a high learning rate", false},
		{"the GPU which keeps crashing has oc -502, 1050 and power limit 69.", true},
		{"the worker which keeps crashing is the data loader", false},
		{"It only happens on GPU 3, the other seven cards run the same job fine.", true},
		{"This only happens on one node (gpu-12); the same job runs fine elsewhere.", true},
		{"The error only occurs on one of my GPUs.", true},
		{"it fails on a single node only", true},
		{"The error occurs on all GPUs and on every node.", false},
		{"It only happens with a batch size of 64.", false},
		{"it does not only happen on GPU 1, every card shows it", false},
		{"models with large hidden dimensions steadily increase GPU junction temperature to near critical levels", true},
		{"Approaching critical junction temp (>107) when running torch", true},
		{"the GPU temp hits critical after ten minutes", true},
		{"the GPU temperature never gets near critical, it stays at 70C", false},
		{"the GPU temperature is not critical", false},
		{"GPU temperature monitoring is a critical part of the dashboard", false},
		{"set the critical temperature threshold in the config", false},
	} {
		if got := hardwareStated([]string{c.text}) == 0; got != c.want {
			t.Errorf("%q: got %v", c.text, got)
		}
	}
}

// The driver's unknown error from a miner's kernel is the card's; from any
// other program, or a miner's illegal access, keeps its surface class.
func TestMinerUnknownError(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct {
		name, log, want string
	}{
		{"ethminer search", "CUDA error in func 'search' at line 346 : unknown error.\n05:07:10|cudaminer2  Error CUDA mining: unknown error\n", "hardware-fault"},
		{"mining kernel name", "CUDA error 'unknown error' in func 'cuda_daggerhashimoto::run' line 1220\n", "hardware-fault"},
		{"hash rate", "GPU #0: 31.2 MH/s\nGPU #0: cudaError 30 (unknown error) calling 'cudaStreamSynchronize(stream)' (salsa_kernel.cu line 902)\n", "hardware-fault"},
		// Look-alikes that keep the surface class.
		{"training unknown error", "RuntimeError: CUDA error: unknown error\nepoch 3, hard negative mining enabled\n", "other"},
		{"miner illegal access", "CUDA error 'an illegal memory access was encountered' in func 'cuda_daggerhashimoto::run' line 1281\n", "illegal-address"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := explainText(t, e, c.log)
			if len(fs) == 0 || fs[0].Class != c.want {
				t.Fatalf("got %+v, want %s", fs, c.want)
			}
		})
	}
}

// gpu-burn's DIED mark after its workers started is the card giving out
// under the stress load; the same mark after a worker that never started
// ("Couldn't init a GPU test"), or a run whose counts stay at zero, is no
// hardware evidence.
func TestGPUBurnDied(t *testing.T) {
	e := New(kb.MustDefault())
	progress := "30.0%  proc'd: -1 (0 Gflop/s) - -1 (0 Gflop/s)   errors: -533715488  (DIED!)- 1278531568  (DIED!)  temps: 30 C - 30 C \n\nNo clients are alive!  Aborting\n"
	for _, c := range []struct {
		name, log, want string
	}{
		{"died", progress, "hardware-fault"},
		{"died after init", "Initialized device 0 with 11441 MB of memory (11332 MB available, using 10199 MB of it), using FLOATS\n" + progress, "hardware-fault"},
		{"never started", "Couldn't init a GPU test: Error in \"load module\": \n15.0%  proc'd: -1 (0 Gflop/s) - -1 (0 Gflop/s)   errors: 0  (DIED!)- 0  (DIED!)  temps: 29 C - 32 C \n", ""},
		{"clean run", "100.0%  proc'd: 18000 (6311 Gflop/s) - 12600 (6440 Gflop/s)   errors: 0 - 0   temps: 51 C - 45 C \nKilling processes.. done\n", ""},
		{"prose", "The gpu-burn page explains that (DIED!) marks a worker that stopped.\n", ""},
	} {
		fs := explainText(t, e, c.log)
		got := ""
		if len(fs) > 0 {
			got = fs[0].Class
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
