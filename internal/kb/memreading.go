package kb

import (
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Device listings that programs print when they start name each card's
// free and total memory in their own words: TensorFlow 1.x's device
// properties ("totalMemory: 11.91GiB freeMemory: 10.28GiB"), CUDA.jl's
// versioninfo ("0: GeForce GTX 1080 Ti (sm_61, 225.375 MiB / 10.917 GiB
// available)"). The oom class reads them as startup_free and
// startup_total. A listing is taken before the program allocates
// anything itself, so little free memory there is memory other processes
// hold; the program's own reservation (TensorFlow takes nearly all of
// what is free) comes after it, which is why plenty free at start-up says
// nothing against a card the program itself then filled.

// startupFreeShare is the share of the card a start-up device listing
// found free.
func startupFreeShare(f map[string]string) (float64, bool) {
	free, ok1 := readingBytes(f["startup_free"])
	total, ok2 := readingBytes(f["startup_total"])
	if !ok1 || !ok2 || total <= 0 || free > total {
		return 0, false
	}
	return free / total, true
}

// readingUnits are the binary units device listings print sizes in.
var readingUnits = map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

// readingBytes reads a size such as "225.375 MiB" or "10.28GiB".
func readingBytes(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, false
	}
	unit, ok := readingUnits[strings.TrimSpace(s[i:])]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v * unit, true
}

// startupListingRE are the wordings, free and total in each one's order.
// TensorFlow 1.0-1.4 put them on two lines of their own ("Total memory:
// 3.94GiB", then "Free memory: 3.55GiB").
var (
	tfListingRE     = lazyre.New(`totalMemory: ?([0-9.]+ ?[KMGT]iB) freeMemory: ?([0-9.]+ ?[KMGT]iB)`)
	cudajlListingRE = lazyre.New(`\(sm_\d+, ([0-9.]+ ?[KMGT]iB) / ([0-9.]+ ?[KMGT]iB) available\)`)
	tfOldTotalRE    = lazyre.New(`^\s*Total memory: ?([0-9.]+ ?[KMGT]iB)\s*$`)
	tfOldFreeRE     = lazyre.New(`^\s*Free memory: ?([0-9.]+ ?[KMGT]iB)\s*$`)
)

// parseStartupMemory reads the first device of the listing (the default
// device, which a failing call uses unless the program chose another),
// whichever of its lines the signature matched: a listing names every
// card, and the others' memory says nothing of the one in use.
func parseStartupMemory(lines []string, _ int) map[string]string {
	for i, l := range lines {
		if m := tfListingRE.FindStringSubmatch(l); m != nil {
			return map[string]string{"startup_total": m[1], "startup_free": m[2]}
		}
		if m := cudajlListingRE.FindStringSubmatch(l); m != nil {
			return map[string]string{"startup_free": m[1], "startup_total": m[2]}
		}
		if m := tfOldTotalRE.FindStringSubmatch(l); m != nil && i+1 < len(lines) {
			if n := tfOldFreeRE.FindStringSubmatch(lines[i+1]); n != nil {
				return map[string]string{"startup_total": m[1], "startup_free": n[1]}
			}
		}
	}
	return nil
}

// YOLOv5 and Ultralytics AutoBatch choose the largest batch whose memory,
// extrapolated from a few trial batches, stays under a share of the card
// (0.9 by default in YOLOv5, 0.6 in later Ultralytics releases), and print
// the prediction against the total ("5.40G/6.00G (90%)"). The estimate
// leaves out what cuBLAS and cuDNN allocate for their handles and
// workspaces, so a run planned that close to the top has no room for
// them: autobatchFullShare is the planned share from which the card
// counts as full.
const autobatchFullShare = 0.85

// autobatchShare is the share of the card AutoBatch planned the batch to
// take (autobatch_used_gib of autobatch_total_gib).
func autobatchShare(f map[string]string) (float64, bool) {
	used, err1 := strconv.ParseFloat(f["autobatch_used_gib"], 64)
	total, err2 := strconv.ParseFloat(f["autobatch_total_gib"], 64)
	if err1 != nil || err2 != nil || total <= 0 || used < 0 {
		return 0, false
	}
	return used / total, true
}
