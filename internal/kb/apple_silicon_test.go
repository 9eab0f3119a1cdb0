package kb

import "testing"

// A CUDA library that cannot load on an Apple Silicon Mac is missing because
// the Mac has no CUDA; an Intel Mac (which could hold an NVIDIA card) or a
// word that only looks like a chip name leaves the library's class.
func TestAppleSiliconRefinesLibraryFailure(t *testing.T) {
	k := MustDefault()
	for _, tc := range []struct {
		line string
		want string
	}{
		{"Hello 我在Mac M1上面运行项目一直报错这个错误", "cuda-unavailable"},
		{"Running on a MacBook Pro M2 Max with 32 GB", "cuda-unavailable"},
		{"OS: macOS 14.1 on Apple Silicon", "cuda-unavailable"},
		{"Hardware: Apple M3 Pro", "cuda-unavailable"},
		{"MacBook Pro 2015 with a GeForce GT 750M", ""},
		{"the M1 Garand rifle dataset", ""},
	} {
		got := ""
		if c, _ := k.RefineByContext("library-mismatch", "", []string{tc.line}); c != nil {
			got = c.ID
		}
		if got != tc.want {
			t.Errorf("%q: refined to %q, want %q", tc.line, got, tc.want)
		}
	}
}
