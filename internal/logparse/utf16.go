package logparse

import (
	"bytes"
	"io"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Windows PowerShell 5 writes redirected output (python train.py >
// log.txt) as UTF-16 with a byte-order mark; Notepad's "Unicode" does
// too. Every other byte of such a log is NUL, so read as it stands it is
// binary. A log that starts with a UTF-16 mark is decoded to UTF-8 first;
// line numbers are unchanged, since a line break stays one line break.

// hasUTF16BOM says whether b starts with a UTF-16 byte-order mark.
func hasUTF16BOM(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff})
}

// decodeUTF16 returns r decoded to UTF-8 when it starts with a UTF-16
// byte-order mark, else a reader of the same bytes.
func decodeUTF16(r io.Reader) io.Reader {
	var mark [2]byte
	n, err := io.ReadFull(r, mark[:])
	head := io.MultiReader(bytes.NewReader(mark[:n]), r)
	if err != nil || !hasUTF16BOM(mark[:]) {
		return head
	}
	// ExpectBOM reads the mark and its byte order; the endianness given
	// is only the default.
	return transform.NewReader(head, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder())
}
