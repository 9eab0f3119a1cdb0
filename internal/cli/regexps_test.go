package cli

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Every pattern the linked packages declare for compiling on first use
// compiles: a bad one is found here, not on the first log that reaches it.
func TestLazyRegexpsCompile(t *testing.T) {
	if n := lazyre.Declared(); n < 100 {
		t.Errorf("only %d patterns declared: the engine's packages are not linked", n)
	}
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
