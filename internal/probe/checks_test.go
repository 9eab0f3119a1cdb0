package probe_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/probe/probetest"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func evaluate(t *testing.T, name string, opts probe.Options) (*probe.Facts, map[string]probe.Result, []report.Finding) {
	t.Helper()
	h, err := probetest.Load(filepath.Join("..", "..", "testdata", "env", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := probe.Gather(context.Background(), h, opts)
	if err != nil {
		t.Fatal(err)
	}
	results, findings := probe.Evaluate(f)
	byID := map[string]probe.Result{}
	for _, r := range results {
		byID[r.ID] = r
	}
	return f, byID, findings
}

// want is a check's expected verdict; contains must appear in its message
// or in one of its findings' messages and remedies.
type want struct {
	status   probe.Status
	class    string
	contains []string
}

func TestChecksOnRecordedMachines(t *testing.T) {
	tests := []struct {
		name   string
		checks map[string]want
	}{
		{"h100", map[string]want{
			"env/nvidia-driver":    {status: probe.Pass, contains: []string{"580.159.04", "cuInit OK"}},
			"env/driver-version":   {status: probe.Pass, contains: []string{"needs >= 580.95.05"}},
			"env/visible-devices":  {status: probe.Pass},
			"env/cuda-available":   {status: probe.Pass, contains: []string{"NVIDIA H100 80GB HBM3 (sm_90)"}},
			"env/gpu-arch":         {status: probe.Pass},
			"env/library-mismatch": {status: probe.Pass, contains: []string{"cuDNN 9.19.0", "also installed, unused: cuDNN 9.14.0"}},
			"env/device-busy":      {status: probe.Pass},
			"env/gpu-memory":       {status: probe.Pass},
			"env/hardware":         {status: probe.Pass, contains: []string{"no Xid"}},
			"env/env-vars":         {status: probe.Pass},
			"env/launch-blocking":  {status: probe.Pass},
			"env/nvcc-version":     {status: probe.Pass, contains: []string{"matches torch"}},
			"env/python-probe":     {status: probe.Pass, contains: []string{"torch 2.11.0+cu130"}},
		}},
		{"h200x2", map[string]want{
			"env/nvidia-driver":  {status: probe.Pass, contains: []string{"2 GPUs"}},
			"env/cuda-available": {status: probe.Pass, contains: []string{"torch sees 2 GPUs"}},
			"env/gpu-arch":       {status: probe.Pass},
			"env/env-vars":       {status: probe.Pass, contains: []string{"NCCL_NVLS_ENABLE"}},
			"env/hardware":       {status: probe.Pass, contains: []string{"kernel log not readable"}},
		}},
		{"no-driver", map[string]want{
			"env/nvidia-driver":  {status: probe.Fail, class: "cuda-unavailable", contains: []string{"no NVIDIA driver is installed or loaded", "docker run --gpus all"}},
			"env/cuda-available": {status: probe.Fail, contains: []string{"see env/nvidia-driver"}},
			"env/python-probe":   {status: probe.Warn, contains: []string{"cannot import torch", "--python"}},
			"env/gpu-arch":       {status: probe.Skip},
		}},
		{"old-driver", map[string]want{
			"env/driver-version": {status: probe.Fail, class: "driver-too-old", contains: []string{"driver 535.104.05 supports CUDA 12.2", "needs driver >= 580.95.05", "Upgrade the NVIDIA driver to 580.95.05", "whl/cu126"}},
			"env/cuda-available": {status: probe.Fail, contains: []string{"see env/driver-version"}},
		}},
		{"sm120-cu126", map[string]want{
			"env/gpu-arch":         {status: probe.Fail, class: "no-kernel-image", contains: []string{"NVIDIA GeForce RTX 5090 (sm_120)", "torch 2.7.0+cu126", "whl/cu128", "torch==2.7.*", "needs driver >= 570.124.06"}},
			"env/driver-version":   {status: probe.Pass},
			"env/library-mismatch": {status: probe.Pass},
		}},
		{"cpu-only", map[string]want{
			"env/cuda-available": {status: probe.Fail, class: "cuda-unavailable", contains: []string{"CPU-only build", "whl/cu130", "torch==2.11.*"}},
			"env/gpu-arch":       {status: probe.Skip},
			"env/driver-version": {status: probe.Skip},
		}},
		{"ld-preload-cudnn", map[string]want{
			"env/library-mismatch": {status: probe.Fail, class: "library-mismatch", contains: []string{"cuDNN 9.14.0 from /usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "nvidia/cudnn/lib/libcudnn.so.9", "unset LD_PRELOAD"}},
		}},
		{"cvd-5", map[string]want{
			"env/visible-devices": {status: probe.Fail, class: "invalid-device-ordinal", contains: []string{`CUDA_VISIBLE_DEVICES=5 names "5" (no such GPU)`, "has 1 GPU (0)", "exposes 0 GPUs", "export CUDA_VISIBLE_DEVICES=0"}},
			"env/cuda-available":  {status: probe.Fail, contains: []string{"see env/visible-devices"}},
			"env/nvidia-driver":   {status: probe.Pass, contains: []string{"CUDA_ERROR_NO_DEVICE"}},
			"env/gpu-memory":      {status: probe.Skip},
		}},
		{"cvd-empty", map[string]want{
			"env/cuda-available":  {status: probe.Fail, class: "cuda-unavailable", contains: []string{`CUDA_VISIBLE_DEVICES="" hides every GPU`, "unset CUDA_VISIBLE_DEVICES"}},
			"env/visible-devices": {status: probe.Pass},
		}},
		{"busy-oom-hw", map[string]want{
			"env/device-busy": {status: probe.Fail, class: "device-busy", contains: []string{"Exclusive_Process", "pid 48213 python", "nvidia-smi -i 0 -c DEFAULT"}},
			"env/gpu-memory":  {status: probe.Fail, class: "oom", contains: []string{"74.2 GiB of 79.6 GiB", "kill 48213"}},
			"env/hardware":    {status: probe.Fail, class: "hardware-fault", contains: []string{"2 uncorrectable ECC errors", "row remapping pending", "Xid 48 on GPU 0 (PCI:0000:00:06)", "Xid 63", "Xid 31", "nvidia-smi -r -i 0 (or reboot)"}},
		}},
		{"env-vars", map[string]want{
			"env/env-vars":        {status: probe.Fail, contains: []string{"TORCH_NCCL_TRACE_BUFFER_SIZE is deprecated in torch 2.11", "TORCH_FR_BUFFER_SIZE", "unknown allocator option \"expandable_segment\"", "max_split_size_mb must be", "differ: only one of them is read"}},
			"env/launch-blocking": {status: probe.Warn, contains: []string{"CUDA_LAUNCH_BLOCKING=1", "unset CUDA_LAUNCH_BLOCKING"}},
			"env/nvcc-version":    {status: probe.Warn, class: "library-mismatch", contains: []string{"CUDA 12.4", "built with CUDA 13.0", "CUDA_HOME=/usr/local/cuda-13.0"}},
		}},
		{"cuinit-803", map[string]want{
			"env/nvidia-driver": {status: probe.Fail, class: "driver-too-old", contains: []string{"803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "/proc/driver/nvidia/version"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, results, findings := evaluate(t, tc.name, probe.Options{})
			for id, w := range tc.checks {
				r, ok := results[id]
				if !ok {
					t.Fatalf("no result for %s", id)
				}
				if r.Status != w.status {
					t.Errorf("%s: status %s, want %s (%s)", id, r.Status, w.status, r.Message)
				}
				text := r.Message
				for _, f := range findings {
					if f.Rule != id {
						continue
					}
					if w.class != "" && f.Class != w.class && f.Severity == report.Error {
						t.Errorf("%s: class %s, want %s", id, f.Class, w.class)
					}
					text += "\n" + f.Message + "\n" + strings.Join(f.Remedies, "\n")
					for _, e := range f.Evidence {
						text += "\n" + e.Text
					}
				}
				if w.class != "" && !hasClass(findings, id, w.class) {
					t.Errorf("%s: no finding of class %s", id, w.class)
				}
				for _, c := range w.contains {
					if !strings.Contains(text, c) {
						t.Errorf("%s: %q not in:\n%s", id, c, text)
					}
				}
			}
			// A failing check always carries an error finding or names the check that does.
			for id, r := range results {
				if r.Status == probe.Fail && !hasSeverity(findings, id, report.Error) && !strings.Contains(r.Message, "(see env/") {
					t.Errorf("%s fails without an error finding: %s", id, r.Message)
				}
			}
		})
	}
}

func hasClass(fs []report.Finding, rule, class string) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Class == class {
			return true
		}
	}
	return false
}

func hasSeverity(fs []report.Finding, rule string, sev report.Severity) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Severity == sev {
			return true
		}
	}
	return false
}

func TestNoPythonSkipsTheProbe(t *testing.T) {
	h, err := probetest.Load(filepath.Join("..", "..", "testdata", "env", "h100"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := probe.Gather(context.Background(), h, probe.Options{NoPython: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ran := range h.Ran {
		if ran == "python" {
			t.Fatal("--no-python ran Python")
		}
	}
	if f.Python != nil || f.PythonSkipped != "--no-python" {
		t.Fatalf("python facts %+v, skipped %q", f.Python, f.PythonSkipped)
	}
	results, findings := probe.Evaluate(f)
	if len(findings) != 0 {
		t.Errorf("healthy machine without the probe has findings: %+v", findings)
	}
	for _, r := range results {
		if r.Status == probe.Fail {
			t.Errorf("%s fails: %s", r.ID, r.Message)
		}
	}
}

func TestPythonProbeFailures(t *testing.T) {
	h, err := probetest.Load(filepath.Join("..", "..", "testdata", "env", "h100"))
	if err != nil {
		t.Fatal(err)
	}
	h.PythonErr = context.DeadlineExceeded
	f, err := probe.Gather(context.Background(), h, probe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Python == nil || !f.Python.TimedOut {
		t.Fatalf("timeout not recorded: %+v", f.Python)
	}
	results, _ := probe.Evaluate(f)
	for _, r := range results {
		if r.ID == "env/python-probe" && (r.Status != probe.Warn || !strings.Contains(r.Message, "did not finish")) {
			t.Errorf("python-probe: %s %s", r.Status, r.Message)
		}
	}
	// An explicit --python that does not exist is an error, not a silent skip.
	if _, err := probe.Gather(context.Background(), h, probe.Options{Python: "/nonexistent/python"}); err == nil {
		t.Error("missing --python interpreter accepted")
	}
}

func TestFindPythonOrder(t *testing.T) {
	h := &probetest.Host{Env: map[string]string{"VIRTUAL_ENV": "/v", "CONDA_PREFIX": "/c"},
		Files: map[string]bool{"/v/bin/python": true, "/c/bin/python3": true}, Paths: map[string]string{"python3": "/usr/bin/python3"}}
	cases := []struct {
		unset, wantPath, wantSource string
	}{
		{"", "/v/bin/python", "$VIRTUAL_ENV"},
		{"VIRTUAL_ENV", "/c/bin/python3", "$CONDA_PREFIX"},
		{"CONDA_PREFIX", "/usr/bin/python3", "PATH"},
	}
	for _, c := range cases {
		if c.unset != "" {
			delete(h.Env, c.unset)
		}
		p, src, err := probe.FindPython(h, "")
		if err != nil || p != c.wantPath || src != c.wantSource {
			t.Errorf("after unsetting %q: %s %s %v", c.unset, p, src, err)
		}
	}
	if p, src, err := probe.FindPython(h, "python3"); err != nil || p != "/usr/bin/python3" || src != "--python" {
		t.Errorf("--python python3: %s %s %v", p, src, err)
	}
	delete(h.Paths, "python3")
	if _, _, err := probe.FindPython(h, ""); err == nil {
		t.Error("no interpreter should be an error")
	}
}

// Every check in the registry is documented as `cudadoctor rules` shows
// it, once, with a class the knowledge base knows. The recorded env cases'
// want files pin the registry's order.
func TestCheckRegistry(t *testing.T) {
	k := kb.MustDefault()
	checks := probe.Checks()
	if len(checks) == 0 {
		t.Fatal("no check registered")
	}
	seenID := map[string]bool{}
	for _, c := range checks {
		if !strings.HasPrefix(c.ID, "env/") || seenID[c.ID] || c.Kind != report.KindProbe || c.Run == nil {
			t.Errorf("%s: bad id, kind %q or no Run", c.ID, c.Kind)
		}
		seenID[c.ID] = true
		if c.Title == "" || c.Summary == "" || c.Severity == report.SeverityNone {
			t.Errorf("%s: title, summary or severity missing", c.ID)
		}
		var titles []string
		for _, s := range c.Sections {
			titles = append(titles, s.Title)
			if strings.TrimSpace(s.Body) == "" {
				t.Errorf("%s: empty section %s", c.ID, s.Title)
			}
		}
		if strings.Join(titles, ",") != "Class,Fix" {
			t.Errorf("%s: sections %v, want Class, Fix", c.ID, titles)
		}
		if _, ok := k.Class(c.Class()); !ok && c.Class() != "other" {
			t.Errorf("%s: class %q is not in the knowledge base", c.ID, c.Class())
		}
	}
	docs := probe.RuleDocs()
	if len(docs) != len(checks) {
		t.Fatalf("%d rule docs for %d checks", len(docs), len(checks))
	}
	for i := range docs {
		if docs[i].ID != checks[i].ID {
			t.Errorf("rule doc %d is %s, check %s", i, docs[i].ID, checks[i].ID)
		}
	}
}

// hungHost is a machine whose driver never answers.
type hungHost struct{ *probetest.Host }

func (hungHost) NVML() nvml.Snapshot         { select {} }
func (hungHost) CUDADriver() nvml.CUDADriver { select {} }

func TestHungDriverIsReportedNotWaitedFor(t *testing.T) {
	h, err := probetest.Load(filepath.Join("..", "..", "testdata", "env", "h100"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := probe.Gather(context.Background(), hungHost{h}, probe.Options{NoPython: true, DriverTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	results, findings := probe.Evaluate(f)
	for _, r := range results {
		if r.ID == "env/nvidia-driver" && (r.Status != probe.Fail || !strings.Contains(r.Message, "hung")) {
			t.Errorf("nvidia-driver: %s %s", r.Status, r.Message)
		}
	}
	if len(findings) == 0 || findings[0].Class != "cuda-unavailable" {
		t.Errorf("findings %+v", findings)
	}
}
