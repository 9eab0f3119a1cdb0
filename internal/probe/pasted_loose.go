package probe

import (
	"strconv"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Reports state versions the way people write, not the way tools print:
// "cuda 版本是 10.2", "CUDA版本11.3", "CUDA 버전 11.8"; they name builds by a
// bare major tag ("deepemhancer 20220530_cu10"); and they paste torch
// versions of source and container builds ("1.7.0a0+57bffc3") whose CUDA
// no release table knows. The readers below take these into the facts
// FromText gathers, each under the same checks as the tool-printed forms.

var (
	// "cuda 版本是 10.2", "CUDA版本11.3", "cuda版本：11.1", "CUDA 버전 11.8",
	// "CUDA バージョン 12.1": the word "version" in Chinese, Korean or
	// Japanese between "cuda" and the number, with "is" or a colon.
	proseCUDARE = lazyre.New(`(?i)\bcuda\s*(?:版本号?|버전|バージョン)\s*(?:是|为|為|은|는|:|：|=)?\s*v?(\d{1,2})\.(\d)\b`)
	// A build named by its CUDA major version alone: "20220530_cu10",
	// "image-cu9", "(cu10)", "`..._cu10`". Only majors up to 10 are read: every minor of
	// CUDA 8, 9 and 10 compiles for the same architectures, so the major
	// settles the arch check; under CUDA 11 it does not (11.0 stops at sm_80,
	// 11.1 adds sm_86).
	majorTagRE = lazyre.New(`(?i)(?:^|[^0-9A-Za-z+])cu(10|9|8)(?:[^0-9A-Za-z]|$)`)
	// What follows a torch version that is a source or container build
	// rather than a release wheel: a pre-release ("1.7.0a0"), a nightly's
	// ".dev20210330" or a git hash ("1.10.0+2c5d4d6"). Such a build carries
	// whatever CUDA it was compiled with; the release's wheels say nothing
	// about it.
	sourceBuildRE = lazyre.New(`^(?:\.\d+)?(?:a\d|rc\d|\.dev|\+(?:git)?[0-9a-f]{7})`)
)

// proseCUDAWords: the words proseCUDARE needs past "cuda" (every one holds
// non-ASCII bytes, so the line gate always lets such a line through).
var proseCUDAWords = []string{"版本", "버전", "バージョン"}

// proseCUDA is a CUDA version stated in prose in another language.
func proseCUDA(w lineWords) (string, bool) {
	if !w.all || !w.digit {
		return "", false
	}
	if !containsAny(w.line, proseCUDAWords) {
		return "", false
	}
	m := buildMatch(proseCUDARE, w.line)
	if m == nil || !cudaKnown(m[1]) {
		return "", false
	}
	return m[1] + "." + m[2], true
}

// majorTagCUDA is the CUDA a bare major build tag names ("cu10" is 10.0:
// its architecture range is every 10.x's).
func majorTagCUDA(w lineWords) (string, bool) {
	if !w.digit || !w.may([]string{"cu1", "cu9", "cu8"}) {
		return "", false
	}
	m := majorTagRE.FindStringSubmatch(w.line)
	if m == nil {
		return "", false
	}
	n, _ := strconv.Atoi(m[1])
	return strconv.Itoa(n) + ".0", true
}

// sourceBuild: the torch version read at the end of match on line l is a
// source or container build ("1.7.0a0+57bffc3").
func sourceBuild(l string, end int) bool {
	return end >= 0 && end <= len(l) && sourceBuildRE.MatchString(l[end:])
}
