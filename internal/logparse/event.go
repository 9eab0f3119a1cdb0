// Package logparse turns log text of any size into events, in one pass and
// bounded memory: Python tracebacks (chained, remote, rank-prefixed),
// folded device-side assertion floods, PyTorch/NCCL C++ log messages,
// C++ frame dumps, compute-sanitizer records and torchrun failure summaries.
package logparse

// Kind says what an event is.
type Kind int

const (
	// KindTraceback is a Python traceback with its chained exceptions.
	KindTraceback Kind = iota + 1
	// KindAssert is a run of device-side assertion lines from one kernel
	// assertion, folded into one event with a count.
	KindAssert
	// KindMessage is a line that names an error (a knowledge-base keyword or
	// a PyTorch C++ log line), with its continuation lines.
	KindMessage
	// KindCppTrace is a C++ frame dump ("Exception raised from ...").
	KindCppTrace
	// KindSummary is torchrun's ChildFailedError summary.
	KindSummary
	// KindSanitizer is a compute-sanitizer error record, folded with the
	// records of the same kind that follow it.
	KindSanitizer
)

var kindNames = map[Kind]string{KindTraceback: "traceback", KindAssert: "assert", KindMessage: "message",
	KindCppTrace: "cpp-trace", KindSummary: "summary", KindSanitizer: "sanitizer"}

func (k Kind) String() string { return kindNames[k] }

// Line is one cleaned log line: ANSI codes, rank prefixes and progress-bar
// overwrites removed. N is its 1-based line number in the input.
type Line struct {
	N    int
	Text string
}

// Frame is a Python stack frame, from a traceback, a failed collective's
// stack trace, or a sanitizer's host backtrace.
type Frame struct {
	Path     string
	Line     int
	Function string
	// Code is the source line printed under the frame (tracebacks only).
	Code string
	// LogLine is where the frame was printed.
	LogLine int
}

// Exception is one link of a traceback chain.
type Exception struct {
	// Type is the exception's type as printed ("torch.AcceleratorError").
	Type string
	// Message is the text after "Type: " on the exception line.
	Message string
	// Lines are the exception line and its message's continuation lines.
	Lines []Line
	// Frames, outermost first, as Python prints them.
	Frames []Frame
	// Remote marks a traceback that ran in another process (multiprocessing
	// RemoteTraceback, DataLoader worker's "Original Traceback").
	Remote bool
}

// Assert is a parsed device-side assertion line.
type Assert struct {
	File   string
	Line   int
	Kernel string
	Block  string
	Thread string
	Expr   string
}

// Work is the description of a ProcessGroupNCCL collective.
type Work struct {
	SeqNum    int
	OpType    string
	NumelIn   int
	NumelOut  int
	TimeoutMs int
	RanForMs  int
}

// RankFailure is one entry of torchrun's failure summary.
type RankFailure struct {
	Root      bool
	Time      string
	Host      string
	Rank      int
	LocalRank int
	ExitCode  int
	PID       int
	// Signal is the signal name when the exit code is negative ("SIGTERM").
	Signal    string
	ErrorFile string
	// Traceback holds the summary's traceback lines (a message or a
	// Python traceback from the error file).
	Traceback []Line
	Line      int
}

// Summary is torchrun's ChildFailedError summary.
type Summary struct {
	Title    string
	Failures []RankFailure
}

// Root is the root-cause entry, if the summary has one.
func (s *Summary) Root() *RankFailure {
	for i := range s.Failures {
		if s.Failures[i].Root {
			return &s.Failures[i]
		}
	}
	return nil
}

// Event is one parsed unit of a log.
type Event struct {
	Kind   Kind
	Source string
	// Rank is the distributed rank from a launcher prefix, -1 when unknown.
	Rank int
	// LocalRank says Rank came from torchrun's --tee/--redirects prefix
	// ("[default0]:"): a rank on its node, not the job's global rank.
	LocalRank bool
	// SrunLabel says the rank came from srun --label's "N: " prefix: the
	// job was started by srun, not by torchrun.
	SrunLabel bool
	// Line and EndLine are the first and last line numbers of the event.
	Line, EndLine int
	// Level is the C++ log level (E, W, I) when the event has a log prefix.
	Level byte
	// Time is the first log timestamp, "MMDD HH:MM:SS.nnnnnnnnn", sortable.
	Time string
	// Lines are the event's significant lines (bounded): the ones that name
	// what happened. Code lines and frame lines are not among them.
	Lines []Line
	// Count is how many occurrences were folded into this event (>= 1).
	Count int
	// Chain is a traceback's exceptions, root cause first.
	Chain []Exception
	// Frames are Python frames outside tracebacks: the stack of a failed
	// collective, or a sanitizer's host backtrace (innermost first).
	Frames  []Frame
	Assert  *Assert
	Work    *Work
	Summary *Summary
}
