package logparse

import (
	"bytes"
	"strings"
)

// srunScanLines bounds the lines srunLabels reads: srun --label puts its
// label on every line from the job's first, so the head of a log shows it.
const srunScanLines = 4096

// srunLabels says whether the "N: " line prefixes of a log are srun
// --label's task labels. A numbered list has the same shape: CUDA.jl's
// device listing ("  0: NVIDIA GeForce GTX 1080 Ti (sm_61, ...)"), the
// numbered steps of a report ("1: installed torch"), a line-numbered
// paste. What only a labelled log shows:
//
//   - one label on two lines in a row: a task wrote both;
//   - a label on three lines or more while another label is there too:
//     tasks taking turns, as a list's numbers do not;
//   - every line behind one label, however few: the output of one task.
//
// A label in front of torchrun's or mpirun's own prefix ("3: [rank3]:")
// is srun's whatever this says (see stripRankKind). It is true when the
// log has no such prefix: there is nothing to tell apart.
func srunLabels(b []byte) bool {
	count := map[int]int{}
	prev := -1 // the previous line's label, -1 when it had none
	shaped, bare := 0, 0
	for i := 0; len(b) > 0 && i < srunScanLines; i++ {
		var raw []byte
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			raw, b = b[:j+1], b[j+1:]
		} else {
			raw, b = b, nil
		}
		if !digitColon(raw) {
			if len(bytes.TrimSpace(raw)) > 0 {
				bare++
				prev = -1
			}
			continue
		}
		s := stripStamp(stripPaste(cleanLine(raw)))
		if len(s) == 0 {
			continue
		}
		n, rest, ok := srunShape(s)
		if !ok {
			if strings.TrimSpace(s) != "" {
				bare++
				prev = -1
			}
			continue
		}
		if r, _, _ := stripRankKind(rest, false); r >= 0 {
			return true
		}
		shaped++
		count[n]++
		if n == prev || (count[n] >= 3 && len(count) >= 2) {
			return true
		}
		prev = n
	}
	return shaped == 0 || (bare == 0 && len(count) == 1)
}

// digitColon says whether a digit stands right before a colon in the head
// of raw, where a label could be: a line without one needs no cleaning.
func digitColon(raw []byte) bool {
	raw = raw[:min(len(raw), 160)]
	for i := bytes.IndexByte(raw, ':'); i >= 0; {
		if i > 0 && raw[i-1] >= '0' && raw[i-1] <= '9' {
			return true
		}
		j := bytes.IndexByte(raw[i+1:], ':')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
