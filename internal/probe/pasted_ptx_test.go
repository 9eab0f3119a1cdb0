package probe

import "testing"

// The PTX compiler's two versions fail env/ptx-version when the code's is
// newer; the same versions the other way round, a toolkit's own release
// notes and prose about versions are no such statement.
func TestPTXVersionStatement(t *testing.T) {
	for in, want := range map[string]Status{
		"ptxas application ptx input, line 9; fatal   : Unsupported .version 6.3; current version is '6.1'": Fail,
		"[warning] Patch PTX version from 8.7 to 8.0. [/src/compute/src/backends/cuda/cuda_shader.cpp:53]":  Fail,
		"ptxas application ptx input, line 9; fatal   : Unsupported .version 7.0; current version is '7.8'": Pass,
		"PTX ISA version 8.1 adds support for the .version 8.1 directive":                                   Skip,
		"Unsupported .version directive in this release":                                                    Skip,
	} {
		p := FromText([]string{in})
		f := &Facts{}
		if p != nil {
			f = p.Facts
		}
		if r := ptxVersionCheck.Run(f); r.Status != want {
			t.Errorf("%q: got %v, want %v", in, r.Status, want)
		}
	}
	p := FromText([]string{"fatal   : Unsupported .version 8.1; current version is '8.0'"})
	r := ptxVersionCheck.Run(p.Facts)
	if r.Findings[0].Facts["ptx_wanted"] != "8.1" || r.Findings[0].Facts["ptx_known"] != "8.0" || r.Findings[0].Facts["ptx_isa"] != true {
		t.Errorf("facts: %+v", r.Findings[0].Facts)
	}
}
