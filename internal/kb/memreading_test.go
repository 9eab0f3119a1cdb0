package kb

import (
	"fmt"
	"slices"
	"testing"
)

// TestStartupListingFullCard: a start-up device listing that found 5% or
// less of the default device free makes the card full; a listing with
// room, a listing of another device only, or a size without a unit does
// not.
func TestStartupListingFullCard(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		full  bool
	}{
		{"tensorflow listing, card held by others", []string{
			"name: TITAN X (Pascal) major: 6 minor: 1 memoryClockRate(GHz): 1.531",
			"totalMemory: 11.91GiB freeMemory: 152.31MiB"}, true},
		{"tensorflow listing with room", []string{"totalMemory: 11.91GiB freeMemory: 10.28GiB"}, false},
		{"cuda.jl listing, default device held by others", []string{
			"  0: GeForce GTX 1080 Ti (sm_61, 225.375 MiB / 10.917 GiB available)",
			"  1: GeForce GTX 1080 Ti (sm_61, 10.665 GiB / 10.917 GiB available)"}, true},
		{"cuda.jl listing, only another device short", []string{
			"  0: GeForce GTX 1080 Ti (sm_61, 10.665 GiB / 10.917 GiB available)",
			"  1: GeForce GTX 1080 Ti (sm_61, 225.375 MiB / 10.917 GiB available)"}, false},
		{"tensorflow 1.0-1.4 two-line listing, card held by others", []string{
			"major: 6 minor: 1 memoryClockRate (GHz) 1.645",
			"pciBusID 0000:01:00.0",
			"Total memory: 7.92GiB",
			"Free memory: 97.31MiB"}, true},
		{"tensorflow 1.0-1.4 two-line listing with room", []string{
			"Total memory: 3.94GiB",
			"Free memory: 3.82GiB"}, false},
		{"free memory line apart from the total", []string{
			"Total memory: 7.92GiB",
			"pciBusID 0000:01:00.0",
			"Free memory: 97.31MiB"}, false},
		{"no listing", []string{"Epoch 1/10 - loss: 0.25"}, false},
	}
	for _, c := range cases {
		f := parseStartupMemory(c.lines, 0)
		if got := cardFull(f); got != c.full {
			t.Errorf("%s: cardFull(%v) = %v, want %v", c.name, f, got, c.full)
		}
	}
	for _, s := range []string{"10.28", "3 GB", "", "MiB"} {
		if _, ok := readingBytes(s); ok {
			t.Errorf("readingBytes(%q) read a size", s)
		}
	}
	if b, ok := readingBytes("225.375 MiB"); !ok || b != 225.375*(1<<20) {
		t.Errorf("readingBytes(225.375 MiB) = %v, %v", b, ok)
	}
}

// TestStartupListingSignatures: the oom class's context signatures read
// both wordings and no look-alike.
func TestStartupListingSignatures(t *testing.T) {
	k := MustDefault()
	ids := map[string]bool{"tf-device-listing-memory": true, "cudajl-device-listing-memory": true, "tf1-device-listing-memory": true}
	for line, want := range map[string]bool{
		"totalMemory: 11.91GiB freeMemory: 10.28GiB":                           true,
		"  0: GeForce GTX 1080 Ti (sm_61, 225.375 MiB / 10.917 GiB available)": true,
		"freeMemory: 10.28GiB":                  false,
		"Total memory: 4.00GiB":                 false,
		"Free memory: 3.55GiB":                  true,
		"  Free memory: 97.31MiB":               true,
		"GPU Free memory: 3.55GiB of 4GiB":      false,
		"model (sm_61) 2.0 GiB / 10.9 GiB used": false,
	} {
		got := false
		for _, c := range k.Classes {
			for i := range c.Signatures {
				if s := &c.Signatures[i]; ids[s.ID] {
					if _, ok := s.MatchString(line); ok {
						got = true
					}
				}
			}
		}
		if got != want {
			t.Errorf("%q: matched %v, want %v", line, got, want)
		}
	}
}

// TestAutobatchFullCard: an AutoBatch plan at 85% of the card or more
// makes it full; a plan with room, or a reading without a total, does not.
func TestAutobatchFullCard(t *testing.T) {
	k := MustDefault()
	cases := []struct {
		line string
		full bool
	}{
		{"AutoBatch: Using batch-size 3 for CUDA:0 5.40G/6.00G (90%)", true},
		{"AutoBatch: Using batch-size 16 for CUDA:0 4.33G/7.79G (56%) ✅", false},
		{"AutoBatch: CUDA:0 (NVIDIA GeForce RTX 3060) 12.00G total, 0.10G reserved, 0.05G allocated, 11.85G free", false},
	}
	for _, c := range cases {
		f := map[string]string{}
		for _, m := range k.Matches(c.line) {
			for name, val := range m.Groups {
				f[name] = val
			}
		}
		if got := cardFull(f); got != c.full {
			t.Errorf("%q: cardFull(%v) = %v, want %v", c.line, f, got, c.full)
		}
	}
}

// TestReadingAgainstOOM: a cuDNN handle failure whose XLA memory reading
// shows most of the card free keeps its class and puts oom last among the
// alternatives; with the card nearly full it is refined to oom; without a
// reading the alternatives keep the corpus order.
func TestReadingAgainstOOM(t *testing.T) {
	k := MustDefault()
	handle := "E0101 00:00:00.000000      21 cuda_dnn.cc:534] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
	reading := func(free int64) string {
		return fmt.Sprintf("E0101 00:00:00.000001      21 cuda_dnn.cc:538] Memory usage: %d bytes free, 8589410304 bytes total.", free)
	}
	alts := func(v Verdict) []string {
		var out []string
		for _, a := range v.Alternatives {
			out = append(out, a.Class)
		}
		return out
	}
	bare, ok := k.Classify([]string{handle})
	if !ok {
		t.Fatal("bare handle failure not classified")
	}
	if bare.Class.ID != "cudnn-error" && bare.Class.ID != "oom" {
		t.Fatalf("bare handle failure: class %s", bare.Class.ID)
	}
	roomy, ok := k.Classify([]string{handle, reading(7438598144)})
	if !ok || roomy.Class.ID != "cudnn-error" {
		t.Fatalf("handle failure with room: %v %v", roomy.Class, ok)
	}
	got := alts(roomy)
	if i := slices.Index(got, "oom"); i != len(got)-1 {
		t.Errorf("handle failure with room: alternatives %v, want oom last", got)
	}
	full, ok := k.Classify([]string{handle, reading(100 << 20)})
	if !ok || full.Class.ID != "oom" {
		t.Errorf("handle failure on a full card: %v, want oom", full.Class)
	}
	if got := alts(Verdict{Alternatives: readingsAgainst([]Alternative{{Class: "oom"}, {Class: "library-mismatch"}}, map[string]string{})}); !slices.Equal(got, []string{"oom", "library-mismatch"}) {
		t.Errorf("no reading: alternatives %v, want the corpus order", got)
	}
}
