package run

import (
	"context"
	_ "embed"
	"fmt"
	"github.com/cudadoctor/cudadoctor/internal/atomicfile"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/pyshim"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/runner"
	"github.com/cudadoctor/cudadoctor/internal/usercode"
)

// ModeAnomaly is the re-run that finds the in-place write behind autograd's
// "modified by an inplace operation": backward only notices the change
// when it needs the saved tensor, long after the line that made it.
const ModeAnomaly = "anomaly"

// EnvAnomaly switches the shim on in the re-run's Python processes.
const EnvAnomaly = "CUDADOCTOR_ANOMALY"

// anomalyShim is put first on the re-run's PYTHONPATH, the way
// --memory-snapshot installs its capture: no change to the user's code.
//
//go:embed anomaly_sitecustomize.py
var anomalyShim []byte

// inplaceError is autograd's message for a saved tensor changed in place.
const inplaceError = "modified by an inplace operation"

var (
	// What the shim prints on the failing backward.
	inplaceWriteRE = regexp.MustCompile(`cudadoctor: in-place write: File "([^"]+)", line (\d+), in (\S+)`)
	// PyTorch's anomaly-mode warning, above the forward frames.
	anomalyHeadRE = regexp.MustCompile(`Error detected in (\w+)\. Traceback of forward call that caused the error:`)
)

// anomalyEnv returns env with the shim installed and switched on, and the
// directory to remove afterwards.
func anomalyEnv(env []string) ([]string, func(), error) {
	dir, err := os.MkdirTemp("", "cudadoctor-anomaly-")
	if err != nil {
		return nil, func() {}, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	if err := atomicfile.WriteBytes(filepath.Join(dir, "sitecustomize.py"), 0o644, pyshim.Source(anomalyShim)); err != nil {
		cleanup()
		return nil, func() {}, err
	}
	path := dir
	if old := envValue(env, "PYTHONPATH"); old != "" {
		path += string(os.PathListSeparator) + old
	}
	return withEnv(withEnv(env, "PYTHONPATH", path), EnvAnomaly, "1"), cleanup, nil
}

// isShimPath: the shim's own frame, which real anomaly mode records under
// every operation it watches.
func isShimPath(p string) bool {
	return strings.Contains(p, "cudadoctor-anomaly-") && strings.HasSuffix(p, "sitecustomize.py")
}

// anomalyResult is what the re-run's output says.
type anomalyResult struct {
	// write is the line that changed the saved tensor in place.
	write *report.Location
	// node and forward: the backward node that found the change and the
	// forward call that created it (the tensor was saved there; the
	// write is there or later).
	node    string
	forward *report.Location
}

// readAnomaly reads the shim's line and PyTorch's forward traceback. The
// forward traceback's innermost user frame is the last one printed before
// torch's own frames.
func readAnomaly(out []byte) anomalyResult {
	var r anomalyResult
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		l = stripRank(l)
		if m := inplaceWriteRE.FindStringSubmatch(l); m != nil && r.write == nil {
			n, _ := strconv.Atoi(m[2])
			r.write = &report.Location{Path: m[1], Line: n, Function: m[3]}
		}
		if m := anomalyHeadRE.FindStringSubmatch(l); m != nil && r.forward == nil {
			r.node = m[1]
			for _, f := range lines[i+1:] {
				f = stripRank(f)
				fr, ok := logparse.ParseFrame(f)
				if !ok {
					if strings.HasPrefix(f, "    ") {
						continue // the frame's source line
					}
					break
				}
				if !usercode.IsUser(fr.Path) || isShimPath(fr.Path) {
					continue
				}
				r.forward = &report.Location{Path: fr.Path, Line: fr.Line, Function: fr.Function}
			}
		}
	}
	return r
}

// rerunAnomaly repeats the command with anomaly detection and the in-place
// watch, and names the write as the origin.
func (o *Options) rerunAnomaly(ctx context.Context, rep *report.Report, first *runner.Result, firstOutput []byte) {
	info := &report.RerunInfo{Mode: ModeAnomaly, Argv: o.Argv, Env: []string{"torch.autograd.set_detect_anomaly(True)"}}
	rep.Run.Rerun = info
	timeout := o.rerunTimeout(first.Duration)
	env, cleanup, err := anomalyEnv(o.Env)
	if err != nil {
		o.rerunOutcome(info, nil, err, timeout, "")
		return
	}
	defer cleanup()
	sc := newScanner()
	res, err := o.rerun(ctx, "autograd anomaly detection", o.Argv, o.Argv, env, timeout, sc)
	if !o.rerunOutcome(info, res, err, timeout, "") {
		return
	}
	if len(rep.Findings) == 0 {
		return
	}
	primary := &rep.Findings[0]
	reported := primary.Reported
	if reported == nil {
		reported = primary.Origin
	}
	if reported == nil {
		reported = lastUserFrame(firstOutput)
	}
	a := readAnomaly(sc.diagnosisInput(res.Tail, res.Dropped, res.Lines))
	if a.forward != nil {
		o.fillCode(a.forward)
		msg := "the tensor changed in place was saved for backward here (anomaly detection)"
		if a.node != "" {
			msg = fmt.Sprintf("the tensor changed in place was saved for backward here, by %s (anomaly detection)", a.node)
		}
		primary.Related = append(primary.Related, report.Related{Message: msg, Location: a.forward})
	}
	if a.write == nil {
		primary.Origin = nil
		primary.Reported = reported
		if a.forward != nil {
			fmt.Fprintf(o.Messages, "cudadoctor: the re-run names no in-place write; the changed tensor was saved at %s%s, and the write is there or later\n",
				shortLoc(a.forward), codeSuffix(a.forward))
		} else {
			fmt.Fprintln(o.Messages, "cudadoctor: the re-run names no in-place write; the origin stays unknown")
		}
		return
	}
	if reported == nil || sameLine(reported, a.write) {
		// backward() itself never writes in place: keep both lines apart.
		reported = nil
	}
	o.setOrigin(primary, reported, a.write, "the anomaly-detection re-run")
	if ev := o.originEvidence(a.write); ev != nil {
		primary.Evidence = append(primary.Evidence, *ev)
	}
}

// originEvidence is the origin line as evidence of the re-run.
func (o *Options) originEvidence(l *report.Location) *report.Evidence {
	text := fmt.Sprintf("in-place write (anomaly-detection re-run): %s:%d", filepath.Base(l.Path), l.Line)
	if l.Code != "" {
		text += ": " + l.Code
	}
	return &report.Evidence{Text: text}
}
