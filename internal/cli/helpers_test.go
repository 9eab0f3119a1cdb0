package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

// update rewrites the golden files of this package's tests.
var update = flag.Bool("update", false, "rewrite golden files")

// runCLI runs `cudadoctor ARGS...` in-process with stdin and a minimal
// environment: PATH only, so children and probes find programs while the
// developer's own settings (NO_COLOR, CUDA_VISIBLE_DEVICES...) cannot leak in.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
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
	code = Main(context.Background(), args, sys)
	return code, out.String(), errb.String()
}
