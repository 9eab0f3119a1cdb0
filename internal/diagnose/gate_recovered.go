package diagnose

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// softenRecovered turns a non-finite finding whose loss later came back
// finite (line at, text) into information: the run got over that step
// (a loss-scale warm-up, an intermittent bad batch), yet the input did
// show NaN or inf, and saying so beats saying nothing. Its remedies stay,
// since a loss that turns NaN now and then is worth chasing.
func softenRecovered(b *built, at int, text string) {
	if b.f.Severity > report.Info {
		b.f.Severity = report.Info
	}
	b.f.Message = fmt.Sprintf("the loss was finite again later (line %d: %q), so this did not stop the run: %s", at, firstWords(text, 12), b.f.Message)
}
