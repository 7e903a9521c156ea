"""pytest plugin: runs a test session with streamvision's torchvision backend enabled, so that
torchvision's own transforms-v2 tests exercise streamvision's kernels:

    pytest -p torchvision_backend_plugin <torchvision's test_transforms_v2.py>

(tests/python on PYTHONPATH). SV_TV_DEVICES picks the routed device types (default "cpu,cuda")."""

import os


def pytest_configure(config):
    import streamvision.torchvision as backend

    devices = [d for d in os.environ.get("SV_TV_DEVICES", "cpu,cuda").split(",") if d]
    backend.enable(devices=devices)
    config._sv_backend_devices = devices


def pytest_report_header(config):
    import streamvision.torchvision as backend

    return f"streamvision torchvision backend: enabled for {backend.enabled_devices()}, {len(backend.kernels())} kernels routed"
