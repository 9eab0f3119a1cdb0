# Reports, as one JSON line, what the PyTorch of this interpreter was built
# for and what it finds at CUDA initialisation. Run by `cudadoctor env`.
import glob
import json
import os
import re
import sys
import time
import warnings

T0 = time.time()
OUT = {"executable": sys.executable, "version": sys.version.split()[0], "prefix": sys.prefix}
FAMILIES = ("cudart", "cudnn", "nccl", "cublasLt", "cublas", "cusparseLt", "cusparse", "cufft",
            "curand", "cusolver", "nvrtc", "nvJitLink", "cupti", "nvshmem", "cuda", "nvidia-ml")
LIB_RE = re.compile(r"^lib([A-Za-z_-]+?)(?:\.alt)?\.so(?:\.[0-9.]+)?$")


def family(base):
    m = LIB_RE.match(base)
    if not m:
        return None
    name = m.group(1)
    for f in FAMILIES:
        if name == f or (name.startswith(f + "_") and f == "cudnn"):
            return f
    return None


def emit():
    OUT["elapsed_s"] = round(time.time() - T0, 3)
    sys.stdout.write("\nCUDADOCTOR-PROBE " + json.dumps(OUT) + "\n")
    sys.stdout.flush()


def err(e):
    return (type(e).__name__ + ": " + str(e)).strip()[:2000]


def split3(v, big):
    # cuDNN >= 9 and NCCL >= 2.9 encode major*10000+minor*100+patch, older ones major*1000+minor*100+patch.
    if v >= big:
        return "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
    return "%d.%d.%d" % (v // 1000, (v % 1000) // 100, v % 100)


def lib_version(path, fam, base):
    import ctypes
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    c_int = ctypes.c_int
    try:
        if fam == "cudart":
            v = c_int()
            if lib.cudaRuntimeGetVersion(ctypes.byref(v)) == 0:
                return "%d.%d" % (v.value // 1000, (v.value % 1000) // 10)
        elif fam == "cuda":
            v = c_int()
            if lib.cuDriverGetVersion(ctypes.byref(v)) == 0:
                return "%d.%d" % (v.value // 1000, (v.value % 1000) // 10)
        elif fam == "cudnn" and base.startswith("libcudnn.so"):
            lib.cudnnGetVersion.restype = ctypes.c_size_t
            return split3(lib.cudnnGetVersion(), 90000)
        elif fam == "nccl":
            v = c_int()
            if lib.ncclGetVersion(ctypes.byref(v)) == 0:
                return split3(v.value, 20900)
        elif fam in ("cublas", "cusparse"):
            parts = []
            for p in range(3):
                v = c_int()
                fn = getattr(lib, fam + "GetProperty")
                if fn(p, ctypes.byref(v)) != 0:
                    return None
                parts.append(str(v.value))
            return ".".join(parts)
        elif fam == "cublasLt":
            lib.cublasLtGetVersion.restype = ctypes.c_size_t
            v = lib.cublasLtGetVersion()
            return "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
        elif fam in ("nvrtc", "nvJitLink"):
            a, b = c_int(), c_int()
            fn = getattr(lib, fam + "Version")
            if fn(ctypes.byref(a), ctypes.byref(b)) == 0:
                return "%d.%d" % (a.value, b.value)
    except (AttributeError, OSError, ValueError):
        return None
    return None


def file_version(real):
    m = re.search(r"\.so\.([0-9][0-9.]*)$", real)
    return m.group(1) if m else None


def mapped_libraries(site):
    seen = {}
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                i = line.find("/")
                if i < 0:
                    continue
                path = line[i:].strip()
                base = os.path.basename(path)
                fam = family(base)
                if fam is None or path in seen:
                    continue
                real = os.path.realpath(path)
                seen[path] = {"path": path, "real_path": real, "name": base, "family": fam,
                              "wheel": bool(site) and real.startswith(site + os.sep)}
    except OSError as e:
        OUT["maps_error"] = err(e)
    libs = list(seen.values())[:200]
    for lib in libs:
        v = lib_version(lib["path"], lib["family"], lib["name"]) or file_version(lib["real_path"])
        if v:
            lib["version"] = v
    return libs


def wheel_libraries(site, torch_dir):
    found = []
    pats = [os.path.join(site, "nvidia", "*", "lib", "lib*.so*"), os.path.join(torch_dir, "lib", "lib*.so*")]
    for pat in pats:
        for p in sorted(glob.glob(pat)):
            base = os.path.basename(p)
            fam = family(base)
            if fam and fam not in ("cuda", "nvidia-ml"):
                found.append({"path": p, "name": base, "family": fam})
            if len(found) >= 300:
                return found
    return found


def main():
    try:
        import torch
    except BaseException as e:  # ImportError, but also a crash inside torch's own import
        OUT["torch_import_error"] = err(e)
        return
    t = {"version": str(torch.__version__), "path": os.path.dirname(os.path.realpath(torch.__file__))}
    OUT["torch"] = t
    v = getattr(torch, "version", None)
    t["cuda"] = getattr(v, "cuda", None)
    t["hip"] = getattr(v, "hip", None)
    t["debug"] = bool(getattr(v, "debug", False))
    site = os.path.dirname(t["path"])
    OUT["site_packages"] = site
    arch = None
    try:
        flags = torch._C._cuda_getArchFlags()
        if flags:
            arch = flags.split()
    except Exception:
        pass
    if arch is None:
        try:
            arch = list(torch.cuda.get_arch_list())
        except Exception:
            arch = []
    t["arch_list"] = arch
    cuda = {"warnings": []}
    OUT["cuda"] = cuda
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            cuda["available"] = bool(torch.cuda.is_available())
        except Exception as e:
            cuda["available"] = False
            cuda["error"] = err(e)
        try:
            cuda["device_count"] = int(torch.cuda.device_count())
        except Exception as e:
            cuda["device_count"] = 0
            cuda.setdefault("error", err(e))
        # A CPU-only build raises "Torch not compiled with CUDA enabled" here.
        try:
            torch.cuda.init()
            devs = []
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                d = {"index": i, "name": p.name, "capability": [p.major, p.minor], "total_memory": int(p.total_memory)}
                if getattr(p, "uuid", None) is not None:
                    d["uuid"] = str(p.uuid)
                devs.append(d)
            cuda["devices"] = devs
            if devs:
                torch.zeros(1, device="cuda")
                torch.cuda.synchronize()
        except BaseException as e:
            cuda.setdefault("error", err(e))
        try:
            cv = torch.backends.cudnn.version()
            if cv is not None:
                t["cudnn"] = int(cv)
        except Exception as e:
            t["cudnn_error"] = err(e)
        try:
            t["cudnn_compile"] = ".".join(str(x) for x in torch._C._cudnn.getCompileVersion())
        except Exception:
            pass
        try:
            if t["cuda"]:
                nv = torch.cuda.nccl.version()
                t["nccl"] = ".".join(str(x) for x in nv) if isinstance(nv, tuple) else str(nv)
        except Exception as e:
            t["nccl_error"] = err(e)
    for w in caught:
        msg = str(w.message).strip()
        if msg and msg not in cuda["warnings"]:
            cuda["warnings"].append(msg[:2000])
    OUT["libraries"] = mapped_libraries(os.path.realpath(site))
    OUT["wheel_libraries"] = wheel_libraries(site, t["path"])
    OUT["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")


try:
    main()
except BaseException as e:
    OUT["probe_error"] = err(e)
emit()
