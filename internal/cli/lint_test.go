package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cudadoctor/cudadoctor/internal/golden"
)

// archive is a minimal txtar: "-- name --" lines separate files.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

func parseArchive(s string) archive {
	var a archive
	lines := strings.SplitAfter(s, "\n")
	cur := -1
	for _, l := range lines {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			a.files = append(a.files, archiveFile{name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = len(a.files) - 1
			continue
		}
		if cur < 0 {
			a.comment += l
		} else {
			a.files[cur].data += l
		}
	}
	return a
}

func (a archive) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n" + f.data)
	}
	return b.String()
}

func (a *archive) get(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

func (a *archive) set(name, data string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name: name, data: data})
}

func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "lint", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLintEndToEnd runs `cudadoctor lint` on each testdata/lint/*.txtar:
// the "args" file is the command line (run in a directory holding the
// other files; "stdin" is standard input), "exit" the expected status, "stdout"/"stderr" the golden
// output. JSON output must parse; SARIF output must validate against the
// OASIS SARIF 2.1.0 schema.
func TestLintEndToEnd(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "lint", "*.txtar"))
	if len(cases) == 0 {
		t.Fatal("no end-to-end cases")
	}
	schema := sarifSchema(t)
	for _, path := range cases {
		path, _ := filepath.Abs(path)
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(raw))
			dir := t.TempDir()
			for _, f := range a.files {
				if strings.HasPrefix(f.name, "src/") {
					p := filepath.Join(dir, strings.TrimPrefix(f.name, "src/"))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(f.data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			args, _ := a.get("args")
			wantExit, _ := a.get("exit")
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			stdin, _ := a.get("stdin")
			sys := Sys{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
			code := Main(context.Background(), strings.Fields(args), sys)
			if want, _ := strconv.Atoi(strings.TrimSpace(wantExit)); code != want {
				t.Errorf("exit %d, want %d; stderr: %s", code, want, stderr.String())
			}
			// Temporary directories differ per run.
			out := strings.ReplaceAll(stdout.String(), dir, "$WORK")
			errOut := strings.ReplaceAll(stderr.String(), dir, "$WORK")
			switch {
			case strings.Contains(args, "--format json"):
				var doc map[string]any
				if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
					t.Errorf("JSON output does not parse: %v", err)
				}
			case strings.Contains(args, "--format sarif"):
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(stdout.Bytes()))
				if err != nil {
					t.Fatalf("SARIF output does not parse: %v", err)
				}
				if err := schema.Validate(inst); err != nil {
					t.Errorf("SARIF output does not validate against the 2.1.0 schema: %v", err)
				}
			}
			if golden.Update() {
				a.set("stdout", out)
				a.set("stderr", errOut)
				if err := os.WriteFile(path, []byte(a.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantOut, _ := a.get("stdout")
			wantErr, _ := a.get("stderr")
			if diff := cmp.Diff(wantOut, out); diff != "" {
				t.Errorf("stdout mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantErr, errOut); diff != "" {
				t.Errorf("stderr mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSARIFSchemaRejects proves the validator is not vacuous.
func TestSARIFSchemaRejects(t *testing.T) {
	schema := sarifSchema(t)
	for _, doc := range []string{
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "rules": [{"id": "A", "helpUri": "not a uri (note)"}]}}}]}`,
	} {
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err := schema.Validate(inst); err == nil {
			t.Errorf("invalid SARIF validated: %s", doc)
		}
	}
}
