package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/runner"
)

// sanitizerLogLimit bounds the sanitizer lines kept from a re-run.
const sanitizerLogLimit = 16 << 20

// findSanitizer looks for compute-sanitizer on PATH, then in the usual
// CUDA install places.
func (o *Options) findSanitizer() (string, error) {
	look := o.LookPath
	if look == nil {
		return "", fmt.Errorf("compute-sanitizer not found")
	}
	if p, err := look("compute-sanitizer"); err == nil {
		return p, nil
	}
	var dirs []string
	for _, k := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := envValue(o.Env, k); v != "" {
			dirs = append(dirs, filepath.Join(v, "bin"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/bin")
	if m, _ := filepath.Glob("/usr/local/cuda-*/bin"); len(m) > 0 {
		dirs = append(dirs, m...)
	}
	for _, d := range dirs {
		if p, err := look(filepath.Join(d, "compute-sanitizer")); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("compute-sanitizer not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda*/bin")
}

// sanitize re-runs the command under compute-sanitizer memcheck and turns
// its report into facts of the primary finding (or a finding of its own).
func (o *Options) sanitize(ctx context.Context, rep *report.Report, first *runner.Result, firstOutput []byte) {
	tool, err := o.findSanitizer()
	argv := append([]string{"compute-sanitizer", "--tool", "memcheck"}, o.Argv...)
	info := &report.RerunInfo{Mode: ModeSanitizer, Argv: argv, Env: []string{"PYTORCH_NO_CUDA_MEMORY_CACHING=1"}}
	rep.Run.Rerun = info
	if err != nil {
		info.Skipped = err.Error()
		fmt.Fprintf(o.Messages, "cudadoctor: %v; install the CUDA toolkit's compute-sanitizer or put it on PATH\n", err)
		return
	}
	argv[0] = tool
	info.Argv = argv
	// The caching allocator hands out slices of large blocks, so an access
	// past a tensor usually lands in memory the allocator owns and the
	// sanitizer sees nothing; without caching every tensor is its own
	// allocation.
	env := withEnv(o.Env, "PYTORCH_NO_CUDA_MEMORY_CACHING", "1")
	sc := newScanner()
	sc.sanitizer, sc.sanitizerLimit = &bytes.Buffer{}, sanitizerLogLimit
	// The sanitizer slows kernels down by orders of magnitude.
	timeout := o.RerunTimeout
	if timeout <= 0 {
		timeout = 10*first.Duration + 5*time.Minute
	}
	res, err := o.rerun(ctx, "compute-sanitizer memcheck", append([]string{"PYTORCH_NO_CUDA_MEMORY_CACHING=1"}, argv...), argv, env, timeout, sc)
	if err != nil {
		info.Skipped = err.Error()
		fmt.Fprintf(o.Messages, "cudadoctor: the sanitizer re-run could not start: %v\n", err)
		return
	}
	info.ExitCode, info.DurationS, info.TimedOut = res.ExitCode, res.Duration.Seconds(), res.TimedOut
	srep, err := logparse.ParseSanitizer(bytes.NewReader(sc.sanitizer.Bytes()))
	if err != nil {
		fmt.Fprintf(o.Messages, "cudadoctor: %v\n", err)
	}
	if srep == nil || len(srep.Errors) == 0 {
		msg := "cudadoctor: compute-sanitizer reported no memory error"
		if res.TimedOut {
			msg += fmt.Sprintf(" before it was stopped after %s", roundDur(timeout))
		}
		fmt.Fprintln(o.Messages, msg)
		return
	}
	e := &srep.Errors[0]
	var f *report.Finding
	if len(rep.Findings) > 0 {
		f = &rep.Findings[0]
	} else {
		rep.Findings = append(rep.Findings, report.Finding{
			Rule: "illegal-address", Class: "illegal-address", Severity: report.Error,
			Message: "a kernel accessed memory outside its allocations"})
		f = &rep.Findings[0]
	}
	if f.Facts == nil {
		f.Facts = map[string]any{}
	}
	total := srep.Summary
	if total < 0 {
		total = srep.Total
	}
	f.Facts["sanitizer_errors"] = total
	if e.Kernel != "" {
		f.Facts["kernel"] = e.Kernel
	}
	if e.Access != "" {
		f.Facts["access"] = e.Access
		f.Facts["access_size"] = e.Size
	}
	if e.Space != "" {
		f.Facts["memory_space"] = e.Space
	}
	if e.Distance >= 0 {
		f.Facts["out_of_bounds_bytes"] = e.Distance
		f.Facts["out_of_bounds_direction"] = e.Direction
		f.Facts["nearest_allocation_bytes"] = e.AllocSize
	}
	var kernelLoc *report.Location
	if e.Source != nil {
		kernelLoc = &report.Location{Path: o.resolveSource(e.Source.File), Line: e.Source.Line, Function: e.Kernel}
		o.fillCode(kernelLoc)
		f.Facts["kernel_source"] = fmt.Sprintf("%s:%d", e.Source.File, e.Source.Line)
	}
	f.Evidence = append(f.Evidence, report.Evidence{Path: "compute-sanitizer", Text: e.Kind, Count: e.Count})
	f.Related = append(f.Related, report.Related{Message: "compute-sanitizer: " + e.Describe(), Location: kernelLoc})
	fmt.Fprintf(o.Messages, "cudadoctor: compute-sanitizer: %s (%d errors)\n", e.Describe(), total)
	if kernelLoc != nil {
		fmt.Fprintf(o.Messages, "cudadoctor: kernel line     %s%s\n", shortLoc(kernelLoc), codeSuffix(kernelLoc))
	}
	launch := e.Launch(o.isUserFile)
	if launch == nil {
		return
	}
	origin := &report.Location{Path: o.resolveSource(launch.File), Line: launch.Line, Function: launch.Function}
	reported := f.Reported
	if reported == nil {
		reported = f.Origin
	}
	if reported == nil {
		reported = lastUserFrame(firstOutput)
	}
	o.setOrigin(f, reported, origin, "compute-sanitizer's launch backtrace")
}

// resolveSource turns a base name from the sanitizer into the command's
// script path when that is where the file is.
func (o *Options) resolveSource(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	for _, a := range o.Argv[1:] {
		if filepath.Ext(a) != ".py" {
			continue
		}
		c := filepath.Join(filepath.Dir(a), filepath.Base(name))
		if filepath.Base(a) == name {
			return a
		}
		if _, err := os.Stat(o.inDir(c)); err == nil {
			return c
		}
	}
	return name
}
