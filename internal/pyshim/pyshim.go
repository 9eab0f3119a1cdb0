// Package pyshim holds what cudadoctor's sitecustomize.py shims share.
// `run --memory-snapshot` and `run`'s in-place re-run each put a
// sitecustomize.py first on the child's PYTHONPATH; both must run the
// sitecustomize they shadow and act only once the program imports torch,
// never importing it themselves. That part is written once, in common.py,
// and Source puts it in front of a shim's own code.
package pyshim

import _ "embed"

//go:embed common.py
var common []byte

// Source is the whole sitecustomize.py for a shim whose own code is body:
// body may call _cudadoctor_chain() and _cudadoctor_when_torch(on_torch).
func Source(body []byte) []byte {
	out := make([]byte, 0, len(common)+1+len(body))
	out = append(out, common...)
	out = append(out, '\n')
	return append(out, body...)
}
