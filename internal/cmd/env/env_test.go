package env

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/golden"
	"github.com/cudadoctor/cudadoctor/internal/probe/probetest"
	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

var cases = []string{"h100", "h200x2", "no-driver", "old-driver", "sm120-cu126", "cpu-only", "ld-preload-cudnn", "cvd-5", "cvd-empty", "busy-oom-hw", "env-vars", "cuinit-803"}

func run(t *testing.T, name string, noPython bool) *report.Report {
	t.Helper()
	h, err := probetest.Load(filepath.Join("..", "..", "..", "testdata", "env", name))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Host: h, NoPython: noPython})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestGolden renders every recorded case as text and JSON; -update rewrites.
func TestGolden(t *testing.T) {
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			rep := run(t, name, false)
			var text, js bytes.Buffer
			if err := Text(&text, rep, render.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := render.JSON(&js, rep); err != nil {
				t.Fatal(err)
			}
			for file, got := range map[string][]byte{"want.txt": text.Bytes(), "want.json": js.Bytes()} {
				golden.Check(t, filepath.Join("..", "..", "..", "testdata", "env", name, file), got)
			}
		})
	}
}

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		maxSev   report.Severity
		primary  string // the first finding's rule
		classOf1 string
	}{
		{"h100", report.SeverityNone, "", ""},
		{"h200x2", report.SeverityNone, "", ""},
		{"no-driver", report.Error, "env/nvidia-driver", "cuda-unavailable"},
		{"old-driver", report.Error, "env/driver-version", "driver-too-old"},
		{"sm120-cu126", report.Error, "env/gpu-arch", "no-kernel-image"},
		{"cpu-only", report.Error, "env/cuda-available", "cuda-unavailable"},
		{"ld-preload-cudnn", report.Error, "env/library-mismatch", "library-mismatch"},
		{"cvd-5", report.Error, "env/visible-devices", "invalid-device-ordinal"},
		{"cvd-empty", report.Error, "env/cuda-available", "cuda-unavailable"},
		{"busy-oom-hw", report.Error, "env/device-busy", "device-busy"},
		{"env-vars", report.Error, "env/env-vars", "oom"},
		{"cuinit-803", report.Error, "env/nvidia-driver", "driver-too-old"},
	}
	for _, tc := range tests {
		rep := run(t, tc.name, false)
		if got := rep.MaxSeverity(); got != tc.maxSev {
			t.Errorf("%s: max severity %s, want %s: %+v", tc.name, got, tc.maxSev, rep.Findings)
		}
		if tc.primary == "" {
			if len(rep.Findings) != 0 {
				t.Errorf("%s: unexpected findings %+v", tc.name, rep.Findings)
			}
			continue
		}
		if len(rep.Findings) == 0 || rep.Findings[0].Rule != tc.primary || rep.Findings[0].Class != tc.classOf1 {
			t.Errorf("%s: first finding %+v, want %s/%s", tc.name, rep.Findings, tc.primary, tc.classOf1)
		}
		for _, f := range rep.Findings {
			if len(f.Remedies) == 0 {
				t.Errorf("%s: %s has no remedy: %s", tc.name, f.Rule, f.Message)
			}
		}
	}
}

func TestJSONEnvironmentShape(t *testing.T) {
	rep := run(t, "h100", false)
	var js bytes.Buffer
	if err := render.JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Command     string `json:"command"`
		Environment struct {
			Checks []report.CheckResult `json:"checks"`
			NVML   struct {
				DriverVersion string `json:"driver_version"`
				GPUs          []struct {
					CCMajor int `json:"cc_major"`
				} `json:"gpus"`
			} `json:"nvml"`
			Python struct {
				Torch struct {
					CUDA string `json:"cuda"`
				} `json:"torch"`
			} `json:"python"`
		} `json:"environment"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Command != "env" || len(doc.Environment.Checks) != 13 || doc.Environment.NVML.DriverVersion != "580.159.04" ||
		len(doc.Environment.NVML.GPUs) != 1 || doc.Environment.NVML.GPUs[0].CCMajor != 9 || doc.Environment.Python.Torch.CUDA != "13.0" {
		t.Errorf("unexpected JSON: %s", js.String())
	}
}

// BenchmarkNoPython measures `env --no-python` on a recorded machine:
// gathering (fake host) plus every check and the text report.
func BenchmarkNoPython(b *testing.B) {
	h, err := probetest.Load(filepath.Join("..", "..", "..", "testdata", "env", "h100"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := Run(context.Background(), Options{Host: h, NoPython: true})
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Text(&buf, rep, render.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
