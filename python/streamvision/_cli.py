"""The ``streamvision`` console command of a pip install: runs the command-line program (the C++
program from tools/) that CMake installs into the package as ``streamvision/bin/streamvision``."""

import os
import sys


def program_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "streamvision")


def main() -> int:
    exe = program_path()
    if not os.access(exe, os.X_OK):
        sys.stderr.write(
            f"streamvision: the command-line program is not part of this install ({exe} is missing); "
            "it is built when libjpeg, libpng and CLI11 are present at build time\n"
        )
        return 127
    sys.stdout.flush()
    os.execv(exe, [exe] + sys.argv[1:])
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
