"""torchvision backend: torchvision.transforms.v2 code runs on streamvision's kernels.

    import streamvision.torchvision
    streamvision.torchvision.enable()                   # CUDA tensors; devices=("cpu", "cuda") for both
    out = torchvision.transforms.v2.Compose([...])(img)  # torchvision code, streamvision kernels

While enabled, torchvision's image kernels (``resize_image``, ``adjust_hue_image``, ...) are
replaced by routers that call the streamvision functional of the same name on the caller's
current stream when the tensor's device type is enabled and streamvision has a kernel for its
dtype, and torchvision's own kernel otherwise. torchvision's video and mask kernels call its image
kernels, so videos and masks are routed too; boxes, keypoints and PIL images stay torchvision's.

The routers are installed at the two places torchvision looks kernels up: its kernel registry
(``_KERNEL_REGISTRY``, which dispatches ``F.resize(tensor_or_tv_tensor)``; torchvision's public
``register_kernel`` refuses its built-in types, so the entries are replaced directly, keeping
torchvision's tv_tensor wrapping) and the module attributes (``F.resize_image``, and the module
globals through which its video and mask kernels call the image kernels). ``disable()`` puts every
original object back. Importing streamvision never imports torchvision; this module does so only
when ``enable()`` is called.

A router keeps the original kernel as ``__wrapped__``: ``torch.jit.script`` of a routed kernel
compiles torchvision's own code (TorchScript cannot call streamvision).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import pkgutil
from typing import Callable, Iterable, Iterator

from . import _C

__all__ = ["ROUTED", "enable", "disable", "is_enabled", "enabled_devices", "enabled", "kernels"]

# torchvision functionals whose image kernel (name + "_image") streamvision implements with the
# same parameters.
ROUTED: tuple[str, ...] = (
    "horizontal_flip", "vertical_flip", "resize", "crop", "center_crop", "resized_crop", "five_crop", "ten_crop",
    "pad", "rotate", "affine", "perspective", "elastic", "rgb_to_grayscale", "grayscale_to_rgb",
    "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "adjust_gamma", "adjust_sharpness",
    "invert", "posterize", "solarize", "autocontrast", "equalize", "permute_channels", "gaussian_blur",
    "gaussian_noise", "erase", "to_dtype", "normalize",
)

_DEVICE_TYPES = ("cpu", "cuda")

_devices: tuple[str, ...] | None = None
_restore: list[Callable[[], None]] = []  # undo log
_table: dict[tuple[Callable, type], Callable] = {}


def _router(name: str, original: Callable, device_types: tuple[str, ...]) -> Callable:
    ours = getattr(_C, name)

    @functools.wraps(original)
    def kernel(image, *args, **kwargs):
        if image.device.type in device_types:
            try:
                return ours(image, *args, **kwargs)
            except (_C.UnsupportedDTypeError, NotImplementedError):
                # No streamvision kernel for this dtype or argument (e.g. LANCZOS, which
                # torchvision 0.29 resizes): torchvision's own kernel handles it, or raises.
                pass
        return original(image, *args, **kwargs)

    kernel.__streamvision_kernel__ = ours
    # torch.jit.script(kernel) compiles torchvision's original (the hook torch's own
    # script_if_tracing uses): TorchScript cannot call streamvision.
    setattr(kernel, "__original_fn", original)
    setattr(kernel, "__script_if_tracing_wrapper", True)
    return kernel


def _functional_modules():
    import torchvision.transforms.v2.functional as tvF

    yield tvF
    for info in pkgutil.iter_modules(tvF.__path__):
        yield importlib.import_module(f"{tvF.__name__}.{info.name}")


def enable(devices: Iterable[str] = ("cuda",)) -> None:
    """Routes torchvision's image and video kernels to streamvision for tensors on ``devices``.

    Every kernel named in :data:`ROUTED` (``resize_image``, ``adjust_hue_image``, ...) is replaced by a
    router that calls the streamvision functional of the same name, on the caller's current stream,
    when the tensor's device type is enabled; on another device, for a dtype streamvision has no
    kernel for (``UnsupportedDTypeError``) or an argument it does not implement
    (``NotImplementedError``), torchvision's own kernel runs. Calling it again replaces the device
    list. Imports torchvision.

    Args:
        devices: the device types to route: ``"cuda"``, ``"cpu"`` or both.

    Raises:
        ValueError: an unknown device type.
    """
    devices = tuple(devices)
    for d in devices:
        if d not in _DEVICE_TYPES:
            raise ValueError(f"streamvision.torchvision.enable: device type {d!r} is not one of {_DEVICE_TYPES}")
    disable()
    import torchvision.transforms.v2.functional as tvF
    from torchvision.transforms.v2.functional import _utils

    routers = {}
    for name in ROUTED:
        original = getattr(tvF, name + "_image")
        routers[original] = _router(name, original, devices)

    for module in _functional_modules():
        for attr, value in list(vars(module).items()):
            if callable(value) and value in routers:
                _restore.append(functools.partial(setattr, module, attr, value))
                setattr(module, attr, routers[value])

    for functional, registry in _utils._KERNEL_REGISTRY.items():
        for input_type, kernel in list(registry.items()):
            if kernel in routers:
                _restore.append(functools.partial(registry.__setitem__, input_type, kernel))
                registry[input_type] = routers[kernel]
            elif getattr(kernel, "__wrapped__", None) in routers:
                # torchvision's tv_tensor wrappers (unwrap, call, re-wrap the output or outputs)
                # hold the image kernel in a closure cell: route inside them.
                original = kernel.__wrapped__
                for cell in kernel.__closure__ or ():
                    if cell.cell_contents is original:
                        _restore.append(functools.partial(setattr, cell, "cell_contents", original))
                        cell.cell_contents = routers[original]
            else:
                continue
            _table[(functional, input_type)] = registry[input_type]
    global _devices
    _devices = devices


def disable() -> None:
    """Puts torchvision's own kernels back, exactly as they were."""
    global _devices
    for undo in reversed(_restore):
        undo()
    _restore.clear()
    _table.clear()
    _devices = None


def is_enabled() -> bool:
    """Whether :func:`enable` is in effect (for any device type)."""
    return _devices is not None


def enabled_devices() -> tuple[str, ...]:
    """The device types routed now (empty when disabled)."""
    return _devices or ()


@contextlib.contextmanager
def enabled(devices: Iterable[str] = ("cuda",)) -> Iterator[None]:
    """``with streamvision.torchvision.enabled(): ...`` routes inside the block and restores the
    previous state (disabled, or enabled for other devices) after it.

    Args:
        devices: the device types to route inside the block, as for :func:`enable`.
    """
    previous = _devices
    enable(devices)
    try:
        yield
    finally:
        if previous is None:
            disable()
        else:
            enable(previous)


def kernels() -> dict[tuple[Callable, type], Callable]:
    """The active routing: (torchvision functional, input type) -> the kernel torchvision now
    dispatches to for it (a router around streamvision's functional of the same name)."""
    return dict(_table)
