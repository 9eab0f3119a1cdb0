package probe

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// SystemLibrary is a CUDA library the dynamic linker can find outside the
// torch wheel (ldconfig cache, LD_LIBRARY_PATH, LD_PRELOAD).
type SystemLibrary struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	RealPath string `json:"real_path,omitempty"`
	Family   string `json:"family"`
	Version  string `json:"version,omitempty"`
	// Via says how the linker finds it: ldconfig, LD_LIBRARY_PATH, LD_PRELOAD.
	Via string `json:"via"`
}

// checkedFamilies are the libraries a torch wheel ships and a system copy
// can shadow.
var checkedFamilies = []string{"cudnn", "nccl", "cudart", "cublasLt", "cublas", "cusparseLt", "cusparse", "cufft", "curand", "cusolver", "nvrtc", "nvJitLink", "cupti", "nvshmem"}

var libNameRe = lazyre.New(`^lib([A-Za-z_-]+?)(?:\.alt)?\.so(?:\.([0-9][0-9.]*))?$`)

// LibraryFamily names the family of a library file ("libcudnn_ops.so.9" ->
// "cudnn"), "" when it is not one that torch wheels ship.
func LibraryFamily(base string) string {
	m := libNameRe.FindStringSubmatch(base)
	if m == nil {
		return ""
	}
	for _, f := range checkedFamilies {
		if m[1] == f || (f == "cudnn" && strings.HasPrefix(m[1], "cudnn_")) {
			return f
		}
	}
	return ""
}

// isMainLibrary is true for the library that carries the family's version
// (libcudnn.so.9, not libcudnn_ops.so.9).
func isMainLibrary(base, family string) bool {
	return strings.HasPrefix(base, "lib"+family+".so")
}

// fileVersion is the version in a file name: libcudnn.so.9.14.0 -> 9.14.0.
func fileVersion(base string) string {
	m := libNameRe.FindStringSubmatch(base)
	if m == nil {
		return ""
	}
	return m[2]
}

// ParseLdconfig reads `ldconfig -p` and keeps the main library of each
// checked family ("libcudnn.so.9 (libc6,x86-64) => /lib/.../libcudnn.so.9").
func ParseLdconfig(out string) []SystemLibrary {
	var libs []SystemLibrary
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		name, path, ok := strings.Cut(strings.TrimSpace(line), " => ")
		if !ok {
			continue
		}
		if i := strings.Index(name, " ("); i >= 0 {
			name = name[:i]
		}
		fam := LibraryFamily(name)
		path = strings.TrimSpace(path)
		if fam == "" || !isMainLibrary(name, fam) || fileVersion(name) == "" || seen[path] || !strings.HasPrefix(path, "/") {
			continue
		}
		seen[path] = true
		libs = append(libs, SystemLibrary{Name: name, Path: path, Family: fam, Via: "ldconfig"})
	}
	return libs
}

// sonameKey reduces a library file name to its soname, so the mapped file
// (/proc/self/maps shows libcudnn.so.9.14.0) matches the wheel's libcudnn.so.9.
func sonameKey(base string) string {
	m := libNameRe.FindStringSubmatch(base)
	if m == nil {
		return base
	}
	major, _, _ := strings.Cut(m[2], ".")
	if major == "" {
		return strings.TrimSuffix(base, "."+m[2])
	}
	return base[:strings.Index(base, ".so")+3] + "." + major
}
