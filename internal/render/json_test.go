package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndentJSONIsJSONIndent: the one-pass indenter writes what
// json.Indent writes, on every JSON file of the repository's test data
// (compacted first, as an encoder writes it) and on values with escapes,
// empty containers and HTML characters.
func TestIndentJSONIsJSONIndent(t *testing.T) {
	var docs [][]byte
	for _, g := range []string{"../../testdata/*/*.json", "../../testdata/*/*/*.json", "../../testdata/*/*/*/*.json", "testdata/*.json"} {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c bytes.Buffer
			if json.Compact(&c, data) == nil {
				docs = append(docs, append(c.Bytes(), '\n'))
			}
		}
	}
	if len(docs) < 10 {
		t.Fatalf("only %d JSON files found", len(docs))
	}
	values := []any{
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{map[string]any{}, []any{[]any{}}}},
		[]string{`quote " inside`, `back\slash\`, "tab\tnew\nline", `ends with \`, "<module> & <b>", "ünï €", `{"not":"json"}`, "[,:]"},
		map[string]any{"n": 1.5e-7, "t": true, "z": nil, "s": ""},
		"plain", 42, []any{},
	}
	for _, v := range values {
		var c bytes.Buffer
		enc := json.NewEncoder(&c)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, c.Bytes())
	}
	docs = append(docs, []byte(`{"a": [1, 2]}`+"\n")) // not compact: json.Indent's own way
	for _, d := range docs {
		var want bytes.Buffer
		if err := json.Indent(&want, d, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(d); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("indentJSON differs from json.Indent on\n%s\ngot\n%s\nwant\n%s", strings.TrimSpace(string(d)), got, want.Bytes())
		}
	}
}
