package command

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// Sys is every outside fact the CLI layer reads: streams, environment,
// terminal detection and the clock. Tests pass a fake.
type Sys struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable ("" when unset).
	Getenv func(string) string
	// Environ is the whole environment, for children (run).
	Environ func() []string
	// StdoutTTY and StderrTTY say whether the streams are terminals.
	StdoutTTY bool
	StderrTTY bool
	// Width is the terminal width of stdout (0 when unknown).
	Width int
	Now   func() time.Time
	// Getwd is the working directory: SARIF and GitHub annotations give
	// paths relative to it (nil: paths are kept as they are).
	Getwd func() (string, error)
}

// System returns the real process's streams and environment.
func System() Sys {
	s := Sys{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ, Now: time.Now, Getwd: os.Getwd}
	s.StdoutTTY = term.IsTerminal(int(os.Stdout.Fd()))
	s.StderrTTY = term.IsTerminal(int(os.Stderr.Fd()))
	if s.StdoutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			s.Width = w
		}
	}
	return s
}

// StdinIsTTY reports whether stdin is an interactive terminal (then reading
// it would wait for typing, which is never what the user meant).
func (s Sys) StdinIsTTY() bool {
	f, ok := s.Stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
