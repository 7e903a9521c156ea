"""One version: streamvision.__version__ is the compiled module's, which is the file VERSION (the
source of CMake's project version, the C++ header and the wheel's metadata)."""

import os

import streamvision
from streamvision import _C

VERSION_FILE = os.path.join(os.path.dirname(__file__), "..", "..", "VERSION")


def test_version_is_the_compiled_modules():
    assert isinstance(streamvision.__version__, str)
    assert streamvision.__version__ == _C.__version__


def test_version_is_the_version_file():
    with open(VERSION_FILE) as f:
        assert streamvision.__version__ == f.read().strip()
