"""python -m streamvision --cmake-dir | --version"""

import argparse
import sys

import streamvision


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m streamvision")
    parser.add_argument("--cmake-dir", action="store_true", help="print the folder for find_package(streamvision)")
    parser.add_argument("--version", action="store_true")
    args = parser.parse_args(argv)
    if args.cmake_dir:
        print(streamvision.cmake_dir())
    else:
        print(streamvision.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
