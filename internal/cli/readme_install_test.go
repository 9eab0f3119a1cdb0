package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/render"
)

var (
	readmeCommand = regexp.MustCompile(`(?m)(?:^\s+|run: |^\s*\|?\s*)cudadoctor ([a-z]+)([^#\n|>]*)`)
	readmeScript  = regexp.MustCompile("(?:packaging|bench)/[A-Za-z0-9_./-]+\\.(?:py|sh)")
	readmeFlag    = regexp.MustCompile(`(--[a-z][a-z-]*)(?:[ =]([a-z0-9]+))?`)
)

// TestREADMEInstallIsTrue checks what the README tells a new user to type:
// every `cudadoctor CMD --flag` it shows is a command that exists and
// offers those flags (and --format values), every script it names is in the
// repository, the build command's package exists, and no install line points
// at a module path that is not published.
func TestREADMEInstallIsTrue(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if strings.Contains(readme, "@latest") {
		t.Error("README installs with go install ...@latest, but the module path is not published")
	}
	help := map[string]string{}
	checked := 0
	for _, m := range readmeCommand.FindAllStringSubmatch(readme, -1) {
		cmd, rest := m[1], m[2]
		if _, ok := help[cmd]; !ok {
			code, out, stderr := runCLI(t, "", cmd, "--help")
			if code != 0 {
				t.Errorf("README shows `cudadoctor %s`, which is not a command: %s", cmd, stderr)
				help[cmd] = ""
				continue
			}
			help[cmd] = out
		}
		checked++
		for _, f := range readmeFlag.FindAllStringSubmatch(rest, -1) {
			if !strings.Contains(help[cmd], f[1]+" ") {
				t.Errorf("README shows `cudadoctor %s %s`, but %s offers no %s", cmd, strings.TrimSpace(rest), cmd, f[1])
			}
			if f[1] == "--format" {
				if _, err := render.ParseFormat(f[2]); err != nil {
					t.Errorf("README shows `cudadoctor %s --format %s`: %v", cmd, f[2], err)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("found only %d cudadoctor command lines in the README; the pattern no longer matches it", checked)
	}
	for _, want := range []string{"version", "explain", "lint", "run", "env", "memory", "rules"} {
		if _, ok := help[want]; !ok {
			t.Errorf("README shows no `cudadoctor %s`", want)
		}
	}
	for _, script := range readmeScript.FindAllString(readme, -1) {
		if _, err := os.Stat(filepath.Join(repoRoot, script)); err != nil {
			t.Errorf("README names %s, which is not in the repository", script)
		}
	}
	if !strings.Contains(readme, "go build -o cudadoctor ./cmd/cudadoctor") {
		t.Error("README lost the build-from-checkout command")
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "cmd", "cudadoctor", "main.go")); err != nil {
		t.Error("./cmd/cudadoctor, which README builds, has no main.go")
	}
	// The wheel README names is the one build_wheel.py writes for this
	// version on linux/amd64 with Debian 12's glibc.
	if want := "dist/cudadoctor-" + Version + "-py3-none-manylinux_2_34_x86_64.whl"; !strings.Contains(readme, want) {
		t.Errorf("README does not name the wheel %s", want)
	}
	script, err := os.ReadFile(filepath.Join(repoRoot, "packaging", "build_wheel.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"arm64": ("aarch64"`, `f"{dist}-{tag}.whl"`, `tag = f"py3-none-manylinux_{major}_{minor}_{machine}"`} {
		if !strings.Contains(string(script), want) {
			t.Errorf("build_wheel.py no longer holds %s, which README's install lines rely on", want)
		}
	}
}
