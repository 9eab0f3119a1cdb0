package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Status is a check's verdict; the names are the report's.
type Status = report.CheckStatus

const (
	Pass = report.CheckPass
	Warn = report.CheckWarn
	Fail = report.CheckFail
	Skip = report.CheckSkip
)

// Result is one check's verdict, as the report lists it, and, when it fails
// or warns, the findings that say what to do. Evaluate fills in the ID and
// title from the check.
type Result struct {
	report.CheckResult
	Findings []report.Finding
}

// Check is one environment check: its documentation and its judgement, a
// pure function of the gathered facts. Its documentation's "Class" section
// names the taxonomy class its findings belong to unless they say another.
type Check struct {
	report.RuleDoc
	Run func(f *Facts) Result
}

// Class is the taxonomy class of the check's findings.
func (c *Check) Class() string { return c.Section("Class") }

// Checks is the ordered registry: the order is the order of the report, the
// root causes (driver, visibility) before their consequences.
func Checks() []Check {
	return []Check{
		nvidiaDriverCheck,
		driverVersionCheck,
		visibleDevicesCheck,
		cudaAvailableCheck,
		gpuArchCheck,
		libraryMismatchCheck,
		deviceBusyCheck,
		gpuMemoryCheck,
		hardwareCheck,
		envVarsCheck,
		launchBlockingCheck,
		nvccCheck,
		pythonProbeCheck,
	}
}

// RuleDocs documents every check for `cudadoctor rules` and SARIF.
func RuleDocs() []report.RuleDoc {
	var out []report.RuleDoc
	for _, c := range Checks() {
		out = append(out, c.RuleDoc)
	}
	return out
}

// Evaluate runs every check; findings come out in check order, most severe
// first.
func Evaluate(f *Facts) ([]Result, []report.Finding) {
	var results []Result
	findings := []report.Finding{}
	for _, c := range Checks() {
		r := c.Run(f)
		r.ID, r.Title = c.ID, c.Title
		for i := range r.Findings {
			r.Findings[i].Rule = c.ID
			if r.Findings[i].Class == "" {
				r.Findings[i].Class = c.Class()
			}
		}
		findings = append(findings, r.Findings...)
		results = append(results, r)
	}
	report.SortFindings(findings)
	return results, findings
}

// verdict is a result without findings.
func verdict(s Status, message string) Result {
	return Result{CheckResult: report.CheckResult{Status: s, Message: message}}
}

func pass(format string, args ...any) Result {
	return verdict(Pass, fmt.Sprintf(format, args...))
}

func skip(format string, args ...any) Result {
	return verdict(Skip, fmt.Sprintf(format, args...))
}

// failWith builds a failing (error) or warning result from its findings.
func failWith(fs ...report.Finding) Result {
	r := Result{CheckResult: report.CheckResult{Status: Pass}, Findings: fs}
	for _, f := range fs {
		switch {
		case f.Severity == report.Error:
			r.Status = Fail
		case f.Severity == report.Warning && r.Status == Pass:
			r.Status = Warn
		}
	}
	if len(fs) > 0 {
		r.Message = fs[0].Message
		if len(fs) > 1 {
			r.Message += fmt.Sprintf(" (+%d more)", len(fs)-1)
		}
	}
	return r
}

func finding(sev report.Severity, msg string, remedies ...string) report.Finding {
	return report.Finding{Severity: sev, Message: msg, Remedies: remedies, Facts: map[string]any{}}
}

func ev(text string) report.Evidence { return report.Evidence{Text: text} }

// torch returns the probed torch build, nil when unknown.
func (f *Facts) torch() *TorchFacts {
	if f.Python == nil {
		return nil
	}
	return f.Python.Torch
}

// visibleGPUs are the GPUs CUDA will use, per CUDA_VISIBLE_DEVICES.
func (f *Facts) visibleGPUs() []nvml.GPU {
	var out []nvml.GPU
	for _, i := range f.Visible.VisibleGPUs(f.NVML.GPUs) {
		if i >= 0 && i < len(f.NVML.GPUs) {
			out = append(out, f.NVML.GPUs[i])
		}
	}
	return out
}

// driverCUDA is the CUDA version the driver supports (libcuda first: with a
// forward-compatibility package it is newer than NVML's).
func (f *Facts) driverCUDA() int {
	if f.CUDA.Version > 0 {
		return f.CUDA.Version
	}
	return f.NVML.CUDAVersion
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func quoteEnv(name, value string) string {
	if value == "" || strings.ContainsAny(value, " \t;&|") {
		return fmt.Sprintf("%s=%q", name, value)
	}
	return name + "=" + value
}

func smArch(major, minor int) string { return fmt.Sprintf("sm_%d%d", major, minor) }
