package diagnose

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

const fullCardOOM = `Traceback (most recent call last):
  File "/home/user/train.py", line 88, in <module>
    out = model(batch)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 79.18 GiB of which 40.19 MiB is free. Including non-PyTorch memory, this process has 79.13 GiB memory in use. Of the allocated memory 78.47 GiB is allocated by PyTorch, and 772.50 KiB is reserved by PyTorch but unallocated.
`

func progress(values ...float64) string {
	var b strings.Builder
	for i, v := range values {
		fmt.Fprintf(&b, "step %d | loss 0.%d | mem_allocated %.1f GiB\n", i*50, 9-i%9, v)
	}
	return b.String()
}

func hasRemedy(f report.Finding, words ...string) bool {
	for _, r := range f.Remedies {
		all := true
		for _, w := range words {
			all = all && strings.Contains(r, w)
		}
		if all {
			return true
		}
	}
	return false
}

// A log whose allocated memory climbs step after step gets the leak fix
// first and no batch-size advice; a log whose memory plateaus does not.
func TestMemoryGrowthLeadsTheFixes(t *testing.T) {
	e := New(kb.MustDefault())
	tests := []struct {
		name string
		log  string
		leak bool
	}{
		{"climbs every step", progress(4.1, 9.8, 15.2, 21.0, 26.9, 33.3, 40.0), true},
		{"warms up then plateaus", progress(4.1, 30.2, 31.0, 31.0, 31.0, 31.0, 31.0), false},
		{"rises and falls", progress(4.1, 9.8, 6.0, 15.2, 9.0, 21.0, 26.9), false},
		{"too few readings", progress(4.1, 30.2, 60.0), false},
		{"no readings", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := explainText(t, e, tt.log+fullCardOOM)
			if len(fs) == 0 || fs[0].Class != "oom" {
				t.Fatalf("want an oom finding, got %+v", fs)
			}
			f := fs[0]
			_, grew := f.Facts["memory_growth"]
			if grew != tt.leak {
				t.Fatalf("memory_growth fact %v, want %v (facts %v)", f.Facts["memory_growth"], tt.leak, f.Facts)
			}
			leakFirst := len(f.Remedies) > 0 && strings.Contains(f.Remedies[0], "loss.item()")
			batch := hasRemedy(f, "reduce the batch size")
			if tt.leak && (!leakFirst || batch) {
				t.Errorf("climbing memory: want the leak fix first and no batch-size fix, got %q", f.Remedies)
			}
			if !tt.leak && (leakFirst || !batch) {
				t.Errorf("no climb: want the batch-size fix and no leak verdict, got %q", f.Remedies)
			}
		})
	}
}

// The readings are read whatever the size of the reads, lines cut across
// reads included.
func TestMemoryGrowthAcrossReads(t *testing.T) {
	e := New(kb.MustDefault())
	log := progress(4.1, 9.8, 15.2, 21.0, 26.9, 33.3, 40.0) + fullCardOOM
	out, err := e.Explain(context.Background(), []Input{{Name: "t.log", Reader: iotest.HalfReader(iotest.OneByteReader(strings.NewReader(log)))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 || out[0].Facts["memory_growth"] != "4.1 GiB at line 1 to 40 GiB at line 7, over 7 readings" {
		t.Fatalf("growth fact %v", out[0].Facts["memory_growth"])
	}
}

// The real H100 leak scenario: its log prints the allocated memory every
// 20 steps until the OOM.
func TestLeakScenarioGetsTheLeakFix(t *testing.T) {
	fs := explainFiles(t, New(kb.MustDefault()), logs+"h100/s28_leak_oom.plain.log")
	if len(fs) == 0 || !strings.Contains(fs[0].Remedies[0], "loss.item()") || hasRemedy(fs[0], "reduce the batch size") {
		t.Fatalf("s28: want the leak fix first, got %q", fs[0].Remedies)
	}
}

// A JAX or TensorFlow OOM says which framework it comes from and gets
// that framework's settings, none of PyTorch's.
func TestFrameworkOOMFixes(t *testing.T) {
	e := New(kb.MustDefault())
	tests := []struct {
		name, log, label string
		settings         []string
	}{
		{"jax", "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 50, in <module>\n    state, loss = train_step(state, batch)\n" +
			"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) on device ordinal 0\n",
			"JAX/XLA", []string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE"}},
		{"tensorflow", "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 50, in <module>\n    model.fit(x, y)\n" +
			"tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor of shape [4096] and type float\n",
			"TensorFlow", []string{"TF_FORCE_GPU_ALLOW_GROWTH", "tf.config.experimental.set_memory_growth"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := explainText(t, e, tt.log)
			if len(fs) == 0 || fs[0].Class != "oom" {
				t.Fatalf("want an oom finding, got %+v", fs)
			}
			f := fs[0]
			if !strings.Contains(f.Message, tt.label) {
				t.Errorf("message %q does not name %s", f.Message, tt.label)
			}
			for _, s := range tt.settings {
				if !hasRemedy(f, s) {
					t.Errorf("no fix names %s: %q", s, f.Remedies)
				}
			}
			for _, r := range f.Remedies {
				if pytorchOnlyRE.MatchString(r) {
					t.Errorf("a PyTorch fix for a %s log: %q", tt.name, r)
				}
			}
		})
	}
}

// A card nearly full is plain exhaustion, not fragmentation, even when
// the cache could hold the request.
func TestNearlyFullCardIsPlainOOM(t *testing.T) {
	fs := explainText(t, New(kb.MustDefault()), `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.40 GiB is free. Including non-PyTorch memory, this process has 22.15 GiB memory in use. Of the allocated memory 20.10 GiB is allocated by PyTorch, and 2.05 GiB is reserved by PyTorch but unallocated.
`)
	if len(fs) == 0 || fs[0].Class != "oom" || !strings.Contains(fs[0].Message, "nearly full") {
		t.Fatalf("want oom with a nearly-full note, got %+v", fs)
	}
}

// Past the first bytes the readings are sampled, one MiB in a stride; a
// climb spread over a long log is still seen, a plateau still is not.
func TestMemoryGrowthSampledInALongLog(t *testing.T) {
	e := New(kb.MustDefault())
	e.memSample = memSampling{full: 1 << 20, stride: 4}
	long := func(climb bool) string {
		var b strings.Builder
		pad := strings.Repeat("x", 200)
		for i := 0; b.Len() < 12<<20; i++ {
			v := 30.0
			if climb {
				v = 1 + float64(i)/100
			}
			fmt.Fprintf(&b, "step %d | mem_allocated %.2f GiB | %s\n", i, v, pad)
		}
		return b.String()
	}
	for _, climb := range []bool{true, false} {
		fs := explainText(t, e, long(climb)+fullCardOOM)
		if len(fs) == 0 || fs[0].Class != "oom" {
			t.Fatalf("want an oom finding, got %+v", fs)
		}
		if _, grew := fs[0].Facts["memory_growth"]; grew != climb {
			t.Errorf("climb %v: memory_growth %v", climb, fs[0].Facts["memory_growth"])
		}
	}
}
