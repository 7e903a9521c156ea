#!/usr/bin/env python3
"""Checks that a streamvision wheel needs only the NVIDIA driver from outside itself.

Unpacks the wheel and, for every ELF file in it (the extension module, libstreamvision, the
`streamvision` program and whatever auditwheel bundled), lists what it needs (DT_NEEDED, via
readelf) and where `ldd` resolves it. Allowed from the system: glibc's libraries, libstdc++ and
libgcc_s (every manylinux system has them; the wheel's tag bounds their versions) and libcuda (the
driver). Everything else must resolve inside the wheel. Prints one line per binary; exits 1 on a
violation or an unresolved library.

    python scripts/check_wheel_deps.py dist/streamvision-*.whl
"""

import os
import re
import subprocess
import sys
import tempfile
import zipfile

# glibc's own libraries, the C++ runtime, and the driver.
SYSTEM_ALLOWED = re.compile(
    r"^(libc|libm|libdl|librt|libpthread|libutil|libresolv|libnsl|libmvec|ld-linux-x86-64)\.so\.\d+$"
    r"|^libstdc\+\+\.so\.6$|^libgcc_s\.so\.1$|^libcuda\.so(\.\d+)*$"
)


def is_elf(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def needed(path: str) -> list:
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def ldd(path: str) -> dict:
    """soname -> resolved path ('not found' when ldd cannot find it)."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?$", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def main(wheel: str) -> int:
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
            for info in z.infolist():  # zipfile drops the executable bits: restore them for ldd
                mode = info.external_attr >> 16
                if mode:
                    os.chmod(os.path.join(tmp, info.filename), mode & 0o777)
        binaries = sorted(
            os.path.join(d, f) for d, _, fs in os.walk(tmp) for f in fs if is_elf(os.path.join(d, f))
        )
        if not binaries:
            print(f"{wheel}: no binaries", file=sys.stderr)
            return 1
        for path in binaries:
            rel = os.path.relpath(path, tmp)
            resolved = ldd(path)
            notes = []
            for lib in needed(path):
                where = resolved.get(lib, "not found")
                inside = where.startswith(tmp + os.sep)
                if where == "not found" and not SYSTEM_ALLOWED.match(lib):
                    bad.append(f"{rel}: {lib} not found")
                elif not inside and not SYSTEM_ALLOWED.match(lib):
                    bad.append(f"{rel}: {lib} comes from the system ({where}), not the wheel")
                notes.append(f"{lib} (wheel)" if inside else lib)
            print(f"  {rel}: {', '.join(notes) or 'nothing'}")
    if bad:
        print("check_wheel_deps: the wheel needs libraries from outside it:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print("check_wheel_deps: only glibc, libstdc++/libgcc_s and the NVIDIA driver come from the system")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
