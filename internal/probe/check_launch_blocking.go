package probe

import "github.com/cudadoctor/cudadoctor/internal/report"

var launchBlockingCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/launch-blocking", Kind: report.KindProbe, Severity: report.Warning,
		Title:   "CUDA_LAUNCH_BLOCKING is off",
		Summary: "CUDA_LAUNCH_BLOCKING=1 makes every kernel launch synchronous. It is the right tool to find where an asynchronous CUDA error comes from, and a large slowdown when left on for training.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "other"},
			{Title: "Fix", Body: "unset CUDA_LAUNCH_BLOCKING once the error is located."},
		},
	},
	Run: runLaunchBlocking,
}

func runLaunchBlocking(f *Facts) Result {
	v, ok := f.Env["CUDA_LAUNCH_BLOCKING"]
	if !ok || v == "" || v == "0" {
		return pass("off")
	}
	fd := finding(report.Warning, "CUDA_LAUNCH_BLOCKING="+v+" is set: every kernel launch waits for the GPU, which slows training severalfold",
		"Keep it only while locating an asynchronous CUDA error; then: unset CUDA_LAUNCH_BLOCKING")
	fd.Evidence = []report.Evidence{ev("CUDA_LAUNCH_BLOCKING=" + v)}
	return failWith(fd)
}
