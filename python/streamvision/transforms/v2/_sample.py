"""How a transform takes a sample apart, by torchvision.transforms.v2's rules: its leaves (inside
tuples, lists and dicts, in torchvision's pytree order), which leaves a transform applies to, the
sample's spatial size, and per-type fill values.

Which leaves are targets:
  * geometric transforms: every tv_tensors.Image, Video, Mask, BoundingBoxes and KeyPoints, all
    moved with the same parameters; a tv_tensor type streamvision does not know raises TypeError
    (torchvision passes it through unmoved: silently wrong next to a moved image);
  * photometric transforms (`_passes_through_tv_tensors`): Images and Videos; masks, boxes and
    keypoints pass through, as in torchvision;
  * transforms for one kind (`_only_tv_tensors`, e.g. ConvertBoundingBoxFormat): exactly those;
and, unless the sample holds an Image or Video, the first plain tensor or array (torch, numpy,
streamvision, any DLPack / CUDA Array Interface exporter), which is the image; later plain
tensors (labels) and non-tensor leaves pass through. PIL images raise TypeError.
"""

import numbers
import collections.abc
import sys

from . import functional as F
from .functional._dispatch import kind as _kind

# tv_tensor kinds a geometric transform moves
GEOMETRIC_KINDS = ("Image", "Video", "Mask", "BoundingBoxes", "KeyPoints")
IMAGE_KINDS = ("Image", "Video")


def tv_tensors():
    return sys.modules.get("torchvision.tv_tensors")  # tv_tensors exist only once torchvision is imported


def kind(x):
    """None for anything but a tv_tensor; else its kind (GEOMETRIC_KINDS, or "TVTensor")."""
    return _kind(x)


def is_array(x):
    """A plain tensor or array: torch tensors, numpy arrays, streamvision tensors, any DLPack or
    CUDA Array Interface exporter (tv_tensors are not plain)."""
    if kind(x) is not None:
        return False
    if hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__"):
        return True
    return type(x).__module__.startswith("numpy") and hasattr(x, "shape")


def leaves(obj, out=None):
    """The leaves of tuples, lists and dicts, in order (torchvision's pytree order)."""
    out = [] if out is None else out
    if isinstance(obj, (list, tuple)):
        for o in obj:
            leaves(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            leaves(o, out)
    else:
        out.append(obj)
    return out


def rebuild(obj, new_leaves):
    """obj's structure with its leaves replaced, in order, by the items of `new_leaves`."""
    it = iter(new_leaves)

    def walk(o):
        if isinstance(o, tuple):
            return tuple(walk(x) for x in o)
        if isinstance(o, list):
            return [walk(x) for x in o]
        if isinstance(o, dict):
            return {k: walk(v) for k, v in o.items()}
        return next(it)

    return walk(obj)


def targets(transform, flat):
    """[bool] per leaf of `flat`: whether `transform` applies to it (rules in the module docstring)."""
    name = type(transform).__name__
    for x in flat:
        if type(x).__module__.startswith("PIL."):
            raise TypeError(f"{name}: PIL images are not supported; convert them to tensors first "
                            "(torchvision.transforms.v2.functional.pil_to_tensor or ToImage)")
    only = getattr(transform, "_only_tv_tensors", None)
    if only is not None:
        return [kind(x) in only for x in flat]
    kinds = IMAGE_KINDS if transform._passes_through_tv_tensors else GEOMETRIC_KINDS
    plain_is_image = not any(kind(x) in IMAGE_KINDS for x in flat)
    chosen = []
    for x in flat:
        k = kind(x)
        if k == "TVTensor" and not transform._passes_through_tv_tensors:
            raise TypeError(f"{name}: {type(x).__module__}.{type(x).__name__} is a tv_tensor type streamvision's "
                            f"transforms do not know; {name} moves {', '.join(GEOMETRIC_KINDS)} (convert it to one "
                            "of them, or apply the transform to the other leaves only)")
        if k is not None:
            chosen.append(k in kinds)
        elif plain_is_image and is_array(x):
            chosen.append(True)
            plain_is_image = False
        else:
            chosen.append(False)
    return chosen


def query_size(flat):
    """(height, width) shared by the images, videos, masks, boxes and keypoints of `flat`."""
    sizes = {tuple(F.get_size(x)) for x in flat if kind(x) in GEOMETRIC_KINDS or is_array(x)}
    if not sizes:
        raise TypeError("No image, video, mask, bounding box or keypoint was found in the sample")
    if len(sizes) > 1:
        raise ValueError(f"Found multiple HxW dimensions in the sample: {', '.join(str(s) for s in sorted(sizes))}")
    return sizes.pop()


def find(flat, kind_name, who):
    """The first tv_tensor of a kind in `flat` (ValueError if none), as torchvision's get_bounding_boxes."""
    for x in flat:
        if kind(x) == kind_name:
            return x
    what = {"BoundingBoxes": "bounding boxes", "KeyPoints": "keypoints"}.get(kind_name, kind_name)
    raise ValueError(f"{who}: No {what} were found in the sample")


# ---- fill ---------------------------------------------------------------------------------------------
def setup_fill(fill):
    """A fill argument as {type or "others": value}: a number, a sequence (per channel), None, or
    a dict keyed by tv_tensor type (e.g. {tv_tensors.Image: 127, tv_tensors.Mask: 0}) and/or "others"."""
    def convert(value):
        if value is None or isinstance(value, numbers.Number):
            return value
        if isinstance(value, (tuple, list)):
            return [float(v) for v in value]
        raise TypeError(f"fill: expected a number, a tuple or list of numbers, None or a dict of them, got "
                        f"{type(value).__name__} (Got inappropriate fill arg, only Numbers, tuples, lists and "
                        "dicts are allowed.)")

    if isinstance(fill, dict):
        return {k: convert(v) for k, v in fill.items()}
    return {"others": convert(fill)}


def get_fill(fill, x):
    """The fill for leaf x: its exact type's entry, else "others", else None (torchvision's rule)."""
    t = type(x)
    if t in fill:
        return fill[t]
    return fill.get("others")


def default_labels(sample, who):
    """torchvision's labels_getter="default": the second item of a tuple/list sample if that is a
    plain tensor, else the "labels" entry (any case), else the first key containing "label", of
    the sample's dict or of its second item. Errors carry torchvision's sentence."""
    if isinstance(sample, (tuple, list)):
        sample = sample[1]
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(sample, torch.Tensor) and kind(sample) is None:
        return sample
    if not isinstance(sample, collections.abc.Mapping):
        raise ValueError(f"{who}: labels_getter='default' expects a dict, or a two-tuple whose second item is a dict "
                         f"or a tensor, got {type(sample).__name__} (When using the default labels_getter, the input "
                         "passed to forward must be a dictionary or a two-tuple whose second item is a dictionary or "
                         "a tensor.)")
    key = next((k for k in sample if k.lower() == "labels"), None)
    if key is None:
        key = next((k for k in sample if "label" in k.lower()), None)
    if key is None:
        raise ValueError(f"{who}: could not find the labels in the sample (no 'labels' key); pass a callable as "
                         "labels_getter, or labels_getter=None if the sample has no labels (Could not infer where "
                         "the labels are in the sample.)")
    return sample[key]
