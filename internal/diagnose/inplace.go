package diagnose

import (
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/usercode"
)

// inplaceMessage is autograd's error for a saved tensor that was modified
// in place after it was saved (not the leaf or view variants, which are
// raised at the write itself).
const inplaceMessage = "modified by an inplace operation"

func isInplaceFailure(f *failure) bool {
	exc := rootException(f)
	if exc != nil && strings.Contains(exc.Message, inplaceMessage) {
		return true
	}
	for _, ev := range f.events {
		for _, l := range ev.Lines {
			if strings.Contains(l.Text, inplaceMessage) {
				return true
			}
		}
	}
	return false
}

var (
	// PyTorch's anomaly-mode warning ("Error detected in SigmoidBackward0.
	// Traceback of forward call that caused the error:") and its frames.
	anomalyHeadRE  = lazyre.New(`Error detected in (\w+)\. Traceback of forward call that caused the error:`)
	anomalyFrameRE = lazyre.New(`^\s*File "([^"]+)", line (\d+), in (\S+)`)
)

// anomalyForward finds anomaly mode's forward traceback in the failure's
// events and returns the backward node and the innermost user frame of the
// forward call: where the changed tensor was saved.
func anomalyForward(f *failure) (string, *logparse.Frame) {
	for _, ev := range f.events {
		for i, l := range ev.Lines {
			m := anomalyHeadRE.FindStringSubmatch(l.Text)
			if m == nil {
				continue
			}
			var fr *logparse.Frame
			for _, next := range ev.Lines[i+1:] {
				fm := anomalyFrameRE.FindStringSubmatch(next.Text)
				if fm == nil {
					if strings.HasPrefix(next.Text, "    ") {
						continue
					}
					break
				}
				// The last test skips the frame of cudadoctor run's own
				// in-place watch, which wraps every operation.
				if !usercode.IsUser(fm[1]) || strings.HasSuffix(fm[1], "sitecustomize.py") {
					continue
				}
				n, _ := strconv.Atoi(fm[2])
				fr = &logparse.Frame{Path: fm[1], Line: n, Function: fm[3], LogLine: next.N}
			}
			if fr != nil {
				return m[1], fr
			}
		}
	}
	return "", nil
}
