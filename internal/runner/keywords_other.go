//go:build !amd64

package runner

// vectorClass: no vector class search on this architecture; the scan
// searches anchor by anchor (scanAnchors).
const vectorClass = false

func indexClass(s []byte, t *classTable) int { return t.indexScalar(s) }
