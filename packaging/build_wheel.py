#!/usr/bin/env python3
"""Build cudadoctor wheels: the Go binary, installed as a script on PATH, and
the cudadoctor Python package (the IPython extension and `python -m
cudadoctor`). Uses only the standard library, Go and a C compiler; no network.

    python3 packaging/build_wheel.py                 # linux/amd64 into dist/
    python3 packaging/build_wheel.py --arch arm64    # needs aarch64-linux-gnu-gcc
    python3 packaging/build_wheel.py --arch amd64 --arch arm64 --out /tmp/wheels

The platform tag is read from the binary, not assumed: manylinux_2_X where
2.X is the newest glibc symbol version the binary needs. Built on Debian 12
that is 2.34 (Go's cgo start-up and dlopen bind to glibc 2.34 symbols); built
on an older glibc (a manylinux2014 image with Go) it is 2.17.
"""

import argparse
import base64
import hashlib
import io
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = "github.com/cudadoctor/cudadoctor/internal/cli"
ARCHES = {
    # GOARCH: (wheel machine, C cross compiler when not native)
    "amd64": ("x86_64", "x86_64-linux-gnu-gcc"),
    "arm64": ("aarch64", "aarch64-linux-gnu-gcc"),
}
NATIVE = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine)


def source_version():
    src = open(os.path.join(ROOT, "internal/cli/version.go")).read()
    m = re.search(r'^\s*Version\s*=\s*"([^"]+)"', src, re.M)
    if not m:
        sys.exit("build_wheel: no Version in internal/cli/version.go")
    return m.group(1)


def git(*args):
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def build_binary(goarch, out, version, commit, date):
    env = dict(os.environ, CGO_ENABLED="1", GOOS="linux", GOARCH=goarch, GOFLAGS="-mod=readonly")
    if goarch != NATIVE:
        cc = ARCHES[goarch][1]
        if not shutil.which(cc):
            raise RuntimeError(f"cross-compiling for {goarch} needs {cc} (Debian: apt-get install gcc-{cc[:-4]})")
        env["CC"] = cc
    ldflags = f"-s -w -X {PKG}.Version={version} -X {PKG}.Commit={commit} -X {PKG}.Date={date}"
    subprocess.run(["go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/cudadoctor"], cwd=ROOT, env=env, check=True)


def glibc_needed(binary):
    """The newest GLIBC_2.N version the binary's dynamic linking needs, read
    from its version-needs section (.gnu.version_r): a string that merely
    mentions a glibc version (an error message the knowledge base matches)
    must not change the tag."""
    data = open(binary, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise RuntimeError(f"{binary} is not a little-endian 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    versions = []
    for _name, typ, _flags, _addr, off, _size, link, info, _align, _entsize in sections:
        if typ != 0x6FFFFFFE:  # SHT_GNU_verneed; info counts its entries
            continue
        strtab = sections[link][4]
        pos = off
        for _ in range(info):
            _ver, cnt, _file, aux, nxt = struct.unpack_from("<HHIII", data, pos)
            apos = pos + aux
            for _ in range(cnt):
                _hash, _aflags, _other, name, anext = struct.unpack_from("<IHHII", data, apos)
                end = data.index(b"\0", strtab + name)
                m = re.fullmatch(rb"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", data[strtab + name:end])
                if m:
                    versions.append((int(m.group(1)), int(m.group(2))))
                apos += anext
            pos += nxt
    if not versions:
        raise RuntimeError(f"{binary} needs no glibc symbol versions: not a dynamically linked glibc binary?")
    # manylinux tags start at glibc 2.17 (manylinux2014).
    return max(max(versions), (2, 17))


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest},{len(data)}"


def write_wheel(path, files, epoch):
    """files: (archive name, bytes, executable). RECORD is added last."""
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip cannot hold dates before 1980
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, executable in files:
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            record.append(f"{name},{record_hash(data)}")
        dist_info = files[-1][0].split("/")[0]
        record.append(f"{dist_info}/RECORD,,")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", stamp)
        info.external_attr = (0o644 | stat.S_IFREG) << 16
        z.writestr(info, "\n".join(record) + "\n")


def metadata(version):
    readme = open(os.path.join(ROOT, "README.md")).read()
    return (
        "Metadata-Version: 2.1\n"
        "Name: cudadoctor\n"
        f"Version: {version}\n"
        "Summary: Explain why a PyTorch GPU program failed, where, and what to do about it\n"
        "Requires-Python: >=3.8\n"
        "Classifier: Environment :: GPU :: NVIDIA CUDA\n"
        "Classifier: Operating System :: POSIX :: Linux\n"
        "Classifier: Framework :: Jupyter\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def python_files():
    base = os.path.join(ROOT, "packaging", "python")
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                full = os.path.join(dirpath, f)
                out.append((os.path.relpath(full, base).replace(os.sep, "/"), open(full, "rb").read(), False))
    return out


def build_wheel(goarch, out_dir, version, commit, date, epoch):
    machine = ARCHES[goarch][0]
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "cudadoctor")
        build_binary(goarch, binary, version, commit, date)
        major, minor = glibc_needed(binary)
        data = open(binary, "rb").read()
    tag = f"py3-none-manylinux_{major}_{minor}_{machine}"
    dist = f"cudadoctor-{version}"
    files = python_files()
    # The binary is a script of the wheel: pip installs it into the
    # environment's bin directory, on PATH when the environment is active.
    files.append((f"{dist}.data/scripts/cudadoctor", data, True))
    files.append((f"{dist}.dist-info/METADATA", metadata(version).encode(), False))
    wheel = f"Wheel-Version: 1.0\nGenerator: cudadoctor build_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files.append((f"{dist}.dist-info/WHEEL", wheel.encode(), False))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{dist}-{tag}.whl")
    write_wheel(path, files, epoch)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", action="append", choices=sorted(ARCHES), help="GOARCH to build (repeatable; default: amd64)")
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"), help="directory for the wheels (default: dist/)")
    args = ap.parse_args()
    version = source_version()
    commit = git("rev-parse", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += "-modified"
    # SOURCE_DATE_EPOCH makes the wheel reproducible; without it, now.
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
    failed = False
    for goarch in args.arch or ["amd64"]:
        try:
            print(build_wheel(goarch, args.out, version, commit, date, epoch))
        except (RuntimeError, subprocess.CalledProcessError) as e:
            print(f"build_wheel: {goarch}: {e}", file=sys.stderr)
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
