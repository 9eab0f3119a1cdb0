package report

// Environment is `env`'s section of the report: the verdict of every check,
// the short table of what was detected, and the facts the probe gathered.
// The fields are in the order of their JSON keys (alphabetical, as the
// section was first written from a map), so the document keeps its bytes.
// The probe's own structures are kept as values of its types: report
// imports nothing of the project, and renderers read only Checks and
// Detected.
type Environment struct {
	Checks             []CheckResult `json:"checks"`
	CUDADriver         any           `json:"cuda_driver"`
	CUDAVisibleDevices any           `json:"cuda_visible_devices"`
	Detected           []Fact        `json:"detected"`
	// Env holds the relevant environment variables that are set.
	Env       map[string]string `json:"env"`
	KernelLog KernelLog         `json:"kernel_log"`
	NVCC      any               `json:"nvcc,omitempty"`
	NVML      any               `json:"nvml"`
	// Python is the torch build's facts; nil when the probe was skipped,
	// and then PythonSkipped says why.
	Python          any     `json:"python,omitempty"`
	PythonSkipped   *string `json:"python_skipped,omitempty"`
	SystemLibraries any     `json:"system_libraries,omitempty"`
}

// KernelLog is where Xid errors were read from (Source), or why they could
// not be (Error), and the Xids found.
type KernelLog struct {
	Error  *string `json:"error,omitempty"`
	Source string  `json:"source,omitempty"`
	Xids   any     `json:"xids"`
}

// CheckResult is one environment check's verdict, as `env` lists it in
// Environment.Checks. The checks themselves (internal/probe) return it, so
// the report holds what they said.
type CheckResult struct {
	ID      string      `json:"id"`
	Title   string      `json:"title"`
	Status  CheckStatus `json:"status"`
	Message string      `json:"message"`
}

// CheckStatus is a check's verdict: pass, warn, fail or skip.
type CheckStatus string

const (
	CheckPass CheckStatus = "pass"
	CheckWarn CheckStatus = "warn"
	CheckFail CheckStatus = "fail"
	CheckSkip CheckStatus = "skip"
)

// Fact is one row of the short "what was detected" table that `env` keeps
// in Environment.Detected.
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
}
