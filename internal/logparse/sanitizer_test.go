package logparse

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const s09SanitizerLog = "../../testdata/gpu/logs/h100/s09_triton_illegal.sanitizer.log"

func TestParseRealTritonReport(t *testing.T) {
	f, err := os.Open(s09SanitizerLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ParseSanitizer(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary != 386 {
		t.Errorf("summary %d, want 386", rep.Summary)
	}
	if rep.Total != 100 {
		t.Errorf("total %d records, want the 100 printed", rep.Total)
	}
	// Three distinct out-of-bounds targets, repeated by many threads.
	if len(rep.Errors) != 3 {
		t.Fatalf("%d distinct errors, want 3", len(rep.Errors))
	}
	first := rep.Errors[0]
	first.HostFrames = nil
	want := SanitizerError{
		Kind: "Invalid __global__ write of size 4 bytes", Space: "global", Access: "write", Size: 4,
		Kernel: "scale_kernel", PC: "0x410",
		Source: &SanitizerFrame{Function: "scale_kernel", File: "s09_triton_illegal.py", Line: 9},
		Thread: "97,0,0", Block: "0,0,0",
		Address: "0x7faca4804000", Detail: "is out of bounds",
		Distance: 4055907841, Direction: "after", Allocation: "0x7fabb2c00000", AllocSize: 512,
		Count: rep.Errors[0].Count,
	}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first error (-want +got):\n%s", diff)
	}
	sum := 0
	for _, e := range rep.Errors {
		sum += e.Count
	}
	if sum != rep.Total {
		t.Errorf("counts add to %d, total %d", sum, rep.Total)
	}
	e := rep.Errors[0]
	if n := len(e.HostFrames); n != 25 {
		t.Errorf("%d host frames, want 25", n)
	}
	if got := e.HostFrames[0]; got != (SanitizerFrame{Function: "launch", Offset: "0x1dbe", Module: "__triton_launcher.cpython-312-x86_64-linux-gnu.so"}) {
		t.Errorf("innermost frame %+v", got)
	}
	launch := e.Launch(func(file string) bool { return file == "s09_triton_illegal.py" })
	if launch == nil || launch.String() != "<module> in s09_triton_illegal.py:13" {
		t.Errorf("launch frame %v", launch)
	}
	if l := e.Launch(nil); l == nil || l.File != "driver.py" {
		t.Errorf("innermost source frame %v", l)
	}
	if got, want := e.Describe(), "invalid global write of 4 bytes in kernel scale_kernel at s09_triton_illegal.py:9, 4,055,907,841 bytes after an allocation of 512 bytes"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	if d := rep.Errors[1]; d.Direction != "before" || d.Distance != 8589918208 || d.AllocSize != 2097152 {
		t.Errorf("second error %+v", d)
	}
}

func TestParseVariants(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want []SanitizerError
	}{
		{
			name: "shared read without line info, interleaved with program output",
			log: `epoch 1
========= Invalid __shared__ read of size 16 bytes
=========     at 0x1a0 in my_kernel(float *)
=========     by thread (0,0,0) in block (3,0,0)
=========     Address 0x400 is out of bounds
loss 0.3
=========
========= ERROR SUMMARY: 1 error
`,
			want: []SanitizerError{{Kind: "Invalid __shared__ read of size 16 bytes", Space: "shared", Access: "read", Size: 16,
				Thread: "0,0,0", Block: "3,0,0", Address: "0x400", Detail: "is out of bounds", Distance: -1, Count: 1,
				Kernel: "my_kernel(float *)", PC: "0x1a0"}},
		},
		{
			name: "misaligned, pid-prefixed lines",
			log: `========= Misaligned Shared or Local Address
=========     at vec_kernel+0x90 in kern.cu:17
=========     by thread (5,0,0) in block (0,0,0)
`,
			want: []SanitizerError{{Kind: "Misaligned Shared or Local Address", Kernel: "vec_kernel", PC: "0x90",
				Source: &SanitizerFrame{Function: "vec_kernel", File: "kern.cu", Line: 17}, Thread: "5,0,0", Block: "0,0,0", Distance: -1, Count: 1}},
		},
		{
			name: "api error",
			log: `========= Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaMemcpy.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: cudaMemcpy [0x5a0] in libcudart.so.13
`,
			want: []SanitizerError{{Kind: `Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaMemcpy.`,
				Distance: -1, Count: 1, HostFrames: []SanitizerFrame{{Function: "cudaMemcpy", Offset: "0x5a0", Module: "libcudart.so.13"}}}},
		},
		{name: "no sanitizer output", log: "Traceback (most recent call last):\nRuntimeError: x\n"},
		{name: "empty", log: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := ParseSanitizer(strings.NewReader(tc.log))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, rep.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBoundsMemory(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("========= Invalid __global__ read of size 4 bytes\n")
		b.WriteString("=========     at k+0x10 in a.cu:" + strings.Repeat("1", 1+i%3) + "\n")
		b.WriteString("=========     and is " + strconv.Itoa(i) + " bytes after the nearest allocation at 0x10 of size 4 bytes\n=========\n")
	}
	rep, err := ParseSanitizer(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != MaxSanitizerErrors || rep.Total != 500 {
		t.Errorf("%d errors kept, %d total", len(rep.Errors), rep.Total)
	}
}

func FuzzParseSanitizer(f *testing.F) {
	if b, err := os.ReadFile(s09SanitizerLog); err == nil {
		f.Add(string(b[:4000]))
	}
	f.Add("========= Invalid __global__ write of size 4 bytes\n=========     at k+0x1 in a.py:9\n=========     and is 1 bytes before the nearest allocation at 0x1 of size 9 bytes\n")
	f.Add("=========         Host Frame: x [0x1] in y\n========= ERROR SUMMARY: 3 errors\n")
	f.Fuzz(func(t *testing.T, s string) {
		rep, err := ParseSanitizer(strings.NewReader(s))
		if err != nil {
			return
		}
		if len(rep.Errors) > MaxSanitizerErrors {
			t.Fatalf("%d errors kept", len(rep.Errors))
		}
		n := 0
		for i := range rep.Errors {
			n += rep.Errors[i].Count
			_ = rep.Errors[i].Describe()
			_ = rep.Errors[i].Launch(func(string) bool { return true })
		}
		if n > rep.Total {
			t.Fatalf("counts %d exceed total %d", n, rep.Total)
		}
	})
}

func TestParseAtForms(t *testing.T) {
	for _, tc := range []struct {
		in               string
		kernel, pc, file string
		line             int
	}{
		{"scale_kernel+0x410 in s09_triton_illegal.py:9", "scale_kernel", "0x410", "s09_triton_illegal.py", 9},
		{"add(float *, int)+0x90", "add(float *, int)", "0x90", "", 0},
		{"0x00000148 in /src/k.cu:12:add(int*)", "add(int*)", "0x00000148", "/src/k.cu", 12},
		{"0x148 in add(int*)", "add(int*)", "0x148", "", 0},
	} {
		var e SanitizerError
		parseSanitizerAt(&e, tc.in)
		file, line := "", 0
		if e.Source != nil {
			file, line = e.Source.File, e.Source.Line
		}
		if e.Kernel != tc.kernel || e.PC != tc.pc || file != tc.file || line != tc.line {
			t.Errorf("%q: kernel %q pc %q at %s:%d", tc.in, e.Kernel, e.PC, file, line)
		}
	}
}
