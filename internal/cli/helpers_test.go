package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
)

// runCLI runs `cudadoctor ARGS...` in-process with stdin and a minimal
// environment: PATH only, so children and probes find programs while the
// developer's own settings (NO_COLOR, CUDA_VISIBLE_DEVICES...) cannot leak in.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runBuild(t, currentBuild(), stdin, args...)
}

// runBuild is runCLI for a binary with the build stamp b.
func runBuild(t *testing.T, b command.Build, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	path := os.Getenv("PATH")
	sys := Sys{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "PATH" {
				return path
			}
			return ""
		},
		Environ: func() []string { return []string{"PATH=" + path} },
		Now:     time.Now,
	}
	code = execute(context.Background(), args, sys, b)
	return code, out.String(), errb.String()
}
