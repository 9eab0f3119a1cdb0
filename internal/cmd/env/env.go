// Package env is the `cudadoctor env` subcommand: it gathers the machine's
// facts through a probe.Host, runs every check and returns the report.
package env

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Options are the subcommand's inputs.
type Options struct {
	// Host is the machine; probe.System{} for the real one.
	Host          probe.Host
	NoPython      bool
	Python        string
	PythonTimeout time.Duration
}

// Run checks the environment.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	if opts.Host == nil {
		opts.Host = probe.System{}
	}
	facts, err := probe.Gather(ctx, opts.Host, probe.Options{NoPython: opts.NoPython, Python: opts.Python, PythonTimeout: opts.PythonTimeout})
	if err != nil {
		return nil, err
	}
	return Build(facts), nil
}

// Build judges gathered facts and assembles the report.
func Build(f *probe.Facts) *report.Report {
	results, findings := probe.Evaluate(f)
	rep := report.New("env", "")
	rep.Findings = findings
	rep.Rules = probe.RuleDocs()
	checks := make([]report.CheckResult, len(results))
	for i, r := range results {
		checks[i] = r.CheckResult
	}
	env := &report.Environment{
		Checks:             checks,
		CUDADriver:         f.CUDA,
		CUDAVisibleDevices: f.Visible,
		Detected:           Detected(f),
		Env:                f.Env,
		NVML:               f.NVML,
		KernelLog:          report.KernelLog{Xids: f.Xids},
	}
	if f.Python != nil {
		env.Python = f.Python
	} else {
		env.PythonSkipped = &f.PythonSkipped
	}
	if f.NVCC != nil {
		env.NVCC = f.NVCC
	}
	if len(f.SystemLibs) > 0 {
		env.SystemLibraries = f.SystemLibs
	}
	if f.KernelLog != "" {
		env.KernelLog.Source = f.KernelLog
	} else {
		env.KernelLog.Error = &f.KernelLogError
	}
	if f.Xids == nil {
		env.KernelLog.Xids = []probe.XidEvent{}
	}
	rep.Environment = env
	return rep
}

// Detected is the short table of what was found, for the text report.
func Detected(f *probe.Facts) []report.Fact {
	var rows []report.Fact
	add := func(l, v string) { rows = append(rows, report.Fact{Label: l, Value: v}) }
	if f.NVML.Loaded {
		add("driver", fmt.Sprintf("%s (supports CUDA %s)", f.NVML.DriverVersion, cudaStr(f.NVML.CUDAVersion)))
	} else {
		add("driver", "none found")
	}
	for _, g := range f.NVML.GPUs {
		line := fmt.Sprintf("%s, sm_%d%d, %s (%s used)", g.Name, g.CCMajor, g.CCMinor, gib(g.MemoryTotal), gib(g.MemoryUsed))
		if g.ComputeMode != "" && g.ComputeMode != "Default" {
			line += ", " + g.ComputeMode
		}
		if g.MIGMode == "Enabled" {
			line += ", MIG"
		}
		add(fmt.Sprintf("GPU %d", g.Index), line)
	}
	if f.Visible.Set {
		add("CUDA_VISIBLE_DEVICES", fmt.Sprintf("%q (%d visible)", f.Visible.Value, f.Visible.Visible))
	}
	switch p := f.Python; {
	case p == nil:
		add("python", "not probed: "+f.PythonSkipped)
	case p.Torch != nil:
		t := p.Torch
		build := "CPU-only"
		if t.CUDA != "" {
			build = "CUDA " + t.CUDA
		}
		if t.CuDNN > 0 {
			build += ", cuDNN " + cudnnStr(t.CuDNN)
		}
		if t.NCCL != "" {
			build += ", NCCL " + t.NCCL
		}
		add("torch", fmt.Sprintf("%s (%s) in %s", t.Version, build, p.Interpreter))
		if len(t.ArchList) > 0 {
			add("arch list", strings.Join(t.ArchList, " "))
		}
		if c := p.CUDA; c != nil {
			s := fmt.Sprintf("is_available=%v, device_count=%d", c.Available, c.DeviceCount)
			if c.Error != "" {
				s += ": " + firstLine(c.Error)
			}
			add("torch.cuda", s)
		}
	case p.TorchError != "":
		add("python", p.Interpreter+": no torch")
	default:
		add("python", p.Interpreter+": "+p.Error)
	}
	if f.NVCC != nil && f.NVCC.Version != "" {
		add("nvcc", fmt.Sprintf("%s (CUDA %s)", f.NVCC.Path, f.NVCC.Version))
	}
	fams := map[string][]string{}
	for _, l := range f.SystemLibs {
		if l.Via == "ldconfig" && (l.Family == "cudnn" || l.Family == "nccl" || l.Family == "cudart" || l.Family == "cublas") {
			fams[l.Family] = append(fams[l.Family], strings.TrimSpace(l.Version))
		}
	}
	if len(fams) > 0 {
		var parts []string
		for fam, vs := range fams {
			parts = append(parts, fam+" "+strings.Join(vs, "/"))
		}
		sort.Strings(parts)
		add("system libs", strings.Join(parts, ", "))
	}
	return rows
}

func cudaStr(v int) string {
	if v <= 0 {
		return "?"
	}
	return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
}

func cudnnStr(v int) string {
	if v >= 90000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, (v%10000)/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, (v%1000)/100, v%100)
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
