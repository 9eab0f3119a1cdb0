package probe

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var pythonProbeCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/python-probe", Kind: report.KindProbe, Severity: report.Warning,
		Title:   "the Python interpreter imports torch",
		Summary: "Runs a short script in the interpreter that will run your code (--python, $VIRTUAL_ENV, $CONDA_PREFIX, then python3/python on PATH) to read the torch build and what CUDA initialisation finds. A missing torch, a crash or a hang there is reported; the torch checks are then skipped.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "other"},
			{Title: "Fix", Body: "Point --python at the interpreter of your environment, or install torch into it."},
		},
	},
	Run: runPythonProbe,
}

func runPythonProbe(f *Facts) Result {
	p := f.Python
	if p == nil {
		return skip("%s", f.PythonSkipped)
	}
	switch {
	case p.Error != "":
		fd := finding(report.Warning, fmt.Sprintf("probing %s failed: %s", p.Interpreter, p.Error),
			"Run it by hand to see why: "+p.Interpreter+" -c 'import torch; torch.cuda.init(); print(torch.cuda.device_count())'")
		if p.TimedOut {
			fd.Remedies = append(fd.Remedies, "A hang in CUDA initialisation often means a wedged driver or GPU: check nvidia-smi and sudo dmesg | grep -i nvrm")
		}
		return failWith(fd)
	case p.TorchError != "":
		fd := finding(report.Warning, fmt.Sprintf("%s cannot import torch: %s", p.Interpreter, p.TorchError),
			"If your code runs in another environment, point at it: cudadoctor env --python /path/to/venv/bin/python",
			"Otherwise install torch there: "+p.Interpreter+" -m pip install torch")
		return failWith(fd)
	case p.ProbeError != "":
		fd := finding(report.Warning, "the probe stopped early: "+p.ProbeError)
		return failWith(fd)
	case p.Torch == nil:
		return skip("no torch information")
	}
	return pass("%s (Python %s, from %s): torch %s, %.1fs", p.Interpreter, p.Version, p.Source, p.Torch.Version, p.ElapsedS)
}
