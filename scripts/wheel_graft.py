#!/usr/bin/env python3
"""Bundles into a repaired wheel the system libraries that manylinux lets it take from the system
but streamvision's wheel promises not to need (it needs only glibc, libstdc++/libgcc_s and the
NVIDIA driver).

auditwheel grafts every library outside the manylinux policy, but the policy also counts zlib,
expat, X11, GL and glib as always present: a program linked against zlib (the `streamvision`
command, or a grafted libpng) keeps needing the system's. This grafts those the way auditwheel
does: a copy under a hash-suffixed name (libz.so.1 -> libz-1a2b3c4d.so.1, so that it never clashes
with another copy in the process) in the wheel's `streamvision.libs/`, DT_NEEDED and RPATH of
the binaries that use it patched with patchelf, and the wheel's RECORD rewritten.

    python scripts/wheel_graft.py WHEEL PATCHELF
"""

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_wheel_deps import SYSTEM_ALLOWED, is_elf, ldd, needed  # noqa: E402


def file_hash(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def grafted_name(soname: str, path: str) -> str:
    stem, dot, rest = soname.partition(".so")
    return f"{stem}-{file_hash(path)[:8]}{dot}{rest}"


def add_rpath(patchelf: str, binary: str, entry: str) -> None:
    current = subprocess.run([patchelf, "--print-rpath", binary], check=True, capture_output=True, text=True)
    entries = [e for e in current.stdout.strip().split(":") if e]
    if entry not in entries:
        subprocess.run([patchelf, "--set-rpath", ":".join(entries + [entry]), binary], check=True)


def write_record(root: str, dist_info: str) -> None:
    record = os.path.join(dist_info, "RECORD")
    lines = []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            if path == os.path.join(root, record):
                continue
            with open(path, "rb") as fh:
                data = fh.read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            lines.append(f"{rel},sha256={digest},{len(data)}")
    lines.append(f"{record},,")
    with open(os.path.join(root, record), "w") as fh:
        fh.write("\n".join(sorted(lines)) + "\n")


def main(wheel: str, patchelf: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
            for info in z.infolist():
                mode = info.external_attr >> 16
                if mode:
                    os.chmod(os.path.join(tmp, info.filename), mode & 0o777)
        libs_dir = os.path.join(tmp, "streamvision.libs")
        grafted = {}  # system path -> name in libs_dir
        changed = True
        while changed:  # a grafted library may need another one
            changed = False
            binaries = [os.path.join(d, f) for d, _, fs in os.walk(tmp) for f in fs if is_elf(os.path.join(d, f))]
            for binary in binaries:
                resolved = ldd(binary)
                for lib in needed(binary):
                    where = resolved.get(lib, "not found")
                    if SYSTEM_ALLOWED.match(lib) or where == "not found" or where.startswith(tmp + os.sep):
                        continue
                    if where not in grafted:
                        os.makedirs(libs_dir, exist_ok=True)
                        name = grafted_name(lib, where)
                        shutil.copy2(os.path.realpath(where), os.path.join(libs_dir, name))
                        os.chmod(os.path.join(libs_dir, name), 0o755)
                        subprocess.run([patchelf, "--set-soname", name, os.path.join(libs_dir, name)], check=True)
                        add_rpath(patchelf, os.path.join(libs_dir, name), "$ORIGIN")
                        grafted[where] = name
                        print(f"wheel_graft: {lib} ({where}) -> streamvision.libs/{name}")
                    subprocess.run([patchelf, "--replace-needed", lib, grafted[where], binary], check=True)
                    add_rpath(patchelf, binary, "$ORIGIN/" + os.path.relpath(libs_dir, os.path.dirname(binary)))
                    changed = True
        if not grafted:
            return 0
        dist_info = next(d for d in os.listdir(tmp) if re.match(r".+\.dist-info$", d))
        write_record(tmp, dist_info)
        out = wheel + ".new"
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for d, _, files in sorted(os.walk(tmp)):
                for f in sorted(files):
                    path = os.path.join(d, f)
                    info = zipfile.ZipInfo.from_file(path, os.path.relpath(path, tmp))
                    info.compress_type = zipfile.ZIP_DEFLATED
                    with open(path, "rb") as fh:
                        z.writestr(info, fh.read())
        os.replace(out, wheel)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
