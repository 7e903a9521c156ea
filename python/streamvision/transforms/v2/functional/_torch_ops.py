"""The functionals as torch.library custom ops (namespace ``streamvision``), for torch.compile.

Why: TorchDynamo cannot trace into a compiled extension, so a call into ``streamvision._C``
inside a compiled function breaks the graph (and fails under ``fullgraph=True``). Registered as
custom ops, the functionals become single opaque graph nodes: while tracing, a fake
implementation gives each result's shape, dtype and strides without running anything; when the
compiled code runs, the node calls the same ``_C`` function as the eager functional. ``_kernels``
routes calls here only while torch.compile traces; eager calls never come here.

Per functional this module holds:

* the schema. Arguments torch.library cannot type are converted by the tracing adapter (the
  functions at the bottom, with the functionals' own signatures): interpolation modes become
  their names (``str?``), fills ``float[]?``, perspective's point lists are flattened, dtypes are
  torch dtypes, and the in-place variants are separate mutating ops (``normalize_``, ``erase_``).
  ``stream=`` and gaussian_noise's streamvision ``generator=`` cannot be graph inputs and are
  refused while tracing.
* the real implementation: the ``_C`` function, whose result is then made to match the fake
  one. A custom op's result may not alias its input, so where ``_C`` returns the input itself
  (to_dtype to the same dtype, resize to the same size, an already contiguous to_contiguous, ...)
  it is copied; and a result is copied into the promised strides if it differs from them
  (the C++ front ends follow the same layout rules, so the tests check that this does not
  happen for the layouts they cover).
* the fake implementation: output sizes of the size-changing ops come from the C++ front end
  itself, run on an empty image (a numpy array with no planes, so no kernel runs), so that
  resize's and rotate's size rules exist once, in C++; strides follow the layout rules of
  src/functional/op_context.hpp (``new_output``, ``batchable``), ported below.

Symbolic sizes that an output size depends on (H and W of resize, pad, rotate with expand, the
crop sizes) are specialised by the empty-image probe, which needs concrete values.
"""

import numbers

import torch

from streamvision import _C

_NS = "streamvision"
_ops = getattr(torch.ops, _NS)

# ---- layout rules (a port of src/core/tensor.cpp, tensor_views.cpp and op_context.cpp) ------------


def _strides_in_order(shape, order):
    """Dense strides for `shape` whose memory order (outermost first) is `order`."""
    strides = [0] * len(shape)
    running = 1
    for d in reversed(order):
        strides[d] = running
        running = running * torch.sym_max(shape[d], 1)
    return strides


def _contiguous(shape):
    return _strides_in_order(shape, range(len(shape)))


def _channels_last(shape):
    """[..., C, H, W] with C innermost (any rank >= 3, as the C++ tensor defines it)."""
    rank = len(shape)
    if rank < 3:
        return _contiguous(shape)
    return _strides_in_order(shape, [*range(rank - 3), rank - 2, rank - 1, rank - 3])


def _dense_like(shape, like_strides):
    """Largest stride outermost; equal strides keep the logical order (a stable sort)."""
    return _strides_in_order(shape, sorted(range(len(shape)), key=lambda d: -like_strides[d]))


def _matches(shape, strides, expected):
    """strides_match: equal except on dims of size 1, whose stride is irrelevant."""
    return all(n == 1 or s == e for n, s, e in zip(shape, strides, expected))


def _same_order(shape, strides, out_shape):
    """OutputLayout::SameOrder: contiguous, else channels_last, else the input's stride order."""
    if _matches(shape, strides, _contiguous(shape)):
        return _contiguous(out_shape)
    if len(shape) >= 3 and _matches(shape, strides, _channels_last(shape)):
        return _channels_last(out_shape)
    return _dense_like(out_shape, strides)


def _interleaved(shape, strides):
    """kernels::channels_innermost: more than one channel, stored innermost."""
    if len(shape) < 3:
        return False
    (c, h, w), (sc, sh, sw) = shape[-3:], strides[-3:]
    return c > 1 and (h <= 1 or sh > sc) and (w <= 1 or sw > sc)


def _cl_or_c(shape, strides, out_shape):
    """OutputLayout::ChannelsLastOrContiguous (torch's interpolate and grid_sample)."""
    return _channels_last(out_shape) if _interleaved(shape, strides) else _contiguous(out_shape)


def _batched(shape, strides):
    """The strides the kernel reads after detail::batchable: the input's when its leading dims
    merge into one batch dim, else those of its contiguous copy."""
    numel = 1
    for n in shape:
        numel = numel * n
    expected = None
    for d in range(len(shape) - 4, -1, -1):
        if shape[d] == 1:
            continue
        if expected is not None and strides[d] != expected and numel != 0:
            return _contiguous(shape)
        expected = strides[d] * shape[d]
    return strides


# The layouts of the ops: (input shape, input strides, output shape, *op arguments) -> strides.
def _elementwise(shape, strides, out_shape, *args):
    return _same_order(shape, strides, out_shape)


def _image_op(shape, strides, out_shape, *args):
    return _same_order(shape, _batched(shape, strides), out_shape)


def _warp(shape, strides, out_shape, *args):
    return _cl_or_c(shape, _batched(shape, strides), out_shape)


def _grayscale_layout(shape, strides, out_shape, *args):
    # One channel is copied channel by channel into an output of the input's order (no batching).
    return _elementwise(shape, strides, out_shape) if shape[-3] == 1 else _image_op(shape, strides, out_shape)


def _equalize_layout(shape, strides, out_shape):
    if len(shape) == 2:  # equalize runs on the [1, H, W] view
        return _image_op((1, *shape), (0, *strides), (1, *out_shape))[1:]
    return _image_op(shape, strides, out_shape)


def _quarter_turn(shape, angle, expand, center):
    """rotate's exact right-angle copies (no warp): functional::rotate's rule."""
    a = angle % 360.0  # Python's modulo, as the C++ python_mod
    square_or_expand = expand or shape[-2] == shape[-1]
    return center is None and (a in (0.0, 180.0) or (square_or_expand and a in (90.0, 270.0)))


def _rotate_layout(shape, strides, out_shape, angle, interpolation, expand, center, fill):
    if _quarter_turn(shape, angle, expand, center):  # torch.rot90's: a flip (90, 270: transposed) or a clone
        if (angle % 360.0) in (90.0, 270.0):
            flipped = _elementwise(shape, strides, (*out_shape[:-2], out_shape[-1], out_shape[-2]))
            return (*flipped[:-2], flipped[-1], flipped[-2])
        return _elementwise(shape, strides, out_shape)
    return _warp(shape, strides, out_shape)


def _resized_crop_layout(shape, strides, out_shape, top, left, height, width, *args):
    window = (*shape[:-2], height, width)
    if tuple(out_shape[-2:]) == (height, width):  # no resize: the crop itself
        return _warp(shape, strides, window)
    if top >= 0 and left >= 0 and top + height <= shape[-2] and left + width <= shape[-1]:
        return _warp(window, strides, out_shape)  # resized straight from a view of the window
    return _warp(window, _warp(shape, strides, window), out_shape)  # from the zero-padded crop


def _five_crop_layout(shape, strides, out_shapes, *args):
    return [_warp(shape, strides, s) for s in out_shapes]


def _ten_crop_layout(shape, strides, out_shapes, *args):
    # The last five are flips of views of the image (elementwise copies of the view's order).
    return [_warp(shape, strides, s) for s in out_shapes[:5]] + \
        [_elementwise((*shape[:-2], *s[-2:]), strides, s) for s in out_shapes[5:]]


# ---- output sizes -----------------------------------------------------------------------------


def _same_shape(inpt, *args):
    return tuple(inpt.shape)


def _probe(name, inpt, *args):
    """The C++ front end of `name` on an empty image with inpt's channels, height and width: its
    checks and its output size, without a kernel (there are no planes). The sizes are made
    concrete (a symbolic H or W is specialised) and the fill is left out (its checks depend on
    the dtype; the run-time call makes them)."""
    try:
        import numpy
    except ModuleNotFoundError as e:
        raise RuntimeError(f"streamvision's {name} under torch.compile computes its output size with numpy, which is "
                           "not installed") from e
    c = inpt.shape[-3] if inpt.dim() >= 3 else 1
    empty = numpy.empty((0, int(c), int(inpt.shape[-2]), int(inpt.shape[-1])), numpy.uint8)
    out = getattr(_C, name)(empty, *args)
    return [tuple(o.shape[-2:]) for o in out] if isinstance(out, tuple) else tuple(out.shape[-2:])


def _with_hw(inpt, hw):
    return (*inpt.shape[:-2], *hw)


def _concrete(values):
    return None if values is None else [int(v) for v in values]


def _resize_shape(inpt, size, interpolation, max_size, antialias):
    max_size = None if max_size is None else int(max_size)
    return _with_hw(inpt, _probe("resize", inpt, _concrete(size), interpolation, max_size, antialias))


def _resized_crop_shape(inpt, top, left, height, width, size, interpolation, antialias):
    return _with_hw(inpt, _probe("resized_crop", inpt, int(top), int(left), int(height), int(width), _concrete(size),
                                 interpolation, antialias))


def _crop_shape(inpt, top, left, height, width):
    if height < 0 or width < 0:
        raise ValueError(f"crop: argument 'height/width': expected a non-negative height and width, got {height} x {width}")
    return _with_hw(inpt, (height, width))


def _center_crop_shape(inpt, output_size):
    return _with_hw(inpt, _probe("center_crop", inpt, _concrete(output_size)))


def _five_crop_shapes(inpt, size):
    return [_with_hw(inpt, hw) for hw in _probe("five_crop", inpt, _concrete(size))]


def _ten_crop_shapes(inpt, size, vertical_flip):
    return [_with_hw(inpt, hw) for hw in _probe("ten_crop", inpt, _concrete(size), vertical_flip)]


def _pad_shape(inpt, padding, fill, padding_mode):
    return _with_hw(inpt, _probe("pad", inpt, _concrete(padding), None, padding_mode))


def _rotate_shape(inpt, angle, interpolation, expand, center, fill):
    return _with_hw(inpt, _probe("rotate", inpt, angle, interpolation, expand, center, None))


def _with_channels(inpt, channels):
    return (*inpt.shape[:-3], channels, *inpt.shape[-2:])


def _grayscale_shape(inpt, num_output_channels):
    return _with_channels(inpt, num_output_channels)


def _to_rgb_shape(inpt):
    return _with_channels(inpt, 3) if inpt.shape[-3] == 1 else tuple(inpt.shape)


# ---- registration -------------------------------------------------------------------------------


def _check_rank(name, inpt, min_rank):
    # functional's detail::check_image, here so that a bad input fails while tracing
    if inpt.dim() < min_rank:
        raise ValueError(f"{name}: argument 'image': expected a tensor with at least {min_rank} dims, got shape "
                         f"{list(inpt.shape)}")


def _aliases(inpt, out):
    """Whether `out` is `inpt` or a view of its memory (an in-bounds crop)."""
    return out is inpt or (out.numel() > 0 and out.untyped_storage().data_ptr() == inpt.untyped_storage().data_ptr())


def _conform(inpt, out, strides):
    """`out` as the op's own result with the promised strides: a copy where it is the input (a
    custom op's result may not alias it) or where its layout differs."""
    # sizes 0 and 1 are skipped as inductor's assert_size_stride skips them
    if _aliases(inpt, out) or any(n > 1 and s != e for n, s, e in zip(out.shape, out.stride(), strides)):
        fresh = out.new_empty_strided(out.shape, strides)
        fresh.copy_(out)
        return fresh
    return out


def _define(name, schema, *, min_rank, shape=_same_shape, layout=_elementwise, dtype=None, eager=None, tags=()):
    """Registers streamvision::<name>. Real implementation: `eager` (the _C function of that name
    by default), called with the schema's arguments in order. Fake implementation: `shape` (the
    output shape, or the list of them for a ``Tensor[]`` result), `layout` and `dtype` (the
    input's by default)."""
    eager = eager or getattr(_C, name)
    many = schema.endswith("Tensor[]")

    def real(inpt, *args):
        out = eager(inpt, *args)
        if many:
            out = list(out)
            promised = layout(inpt.shape, inpt.stride(), [o.shape for o in out], *args)
            return [_conform(inpt, o, s) for o, s in zip(out, promised)]
        return _conform(inpt, out, layout(inpt.shape, inpt.stride(), out.shape, *args))

    op = torch.library.custom_op(f"{_NS}::{name}", real, mutates_args=(), schema=schema, tags=tags)

    @op.register_fake
    def fake(inpt, *args):
        _check_rank(name, inpt, min_rank)
        out_dtype = inpt.dtype if dtype is None else dtype(*args)
        shapes = shape(inpt, *args)
        strides = layout(tuple(inpt.shape), tuple(inpt.stride()), shapes, *args)
        if many:
            return [inpt.new_empty_strided(s, st, dtype=out_dtype) for s, st in zip(shapes, strides)]
        return inpt.new_empty_strided(shapes, strides, dtype=out_dtype)


def _define_inplace(name, schema, eager, *, min_rank):
    """Registers the in-place variant streamvision::<name>, which writes its first argument."""

    def real(inpt, *args):
        eager(inpt, *args)

    op = torch.library.custom_op(f"{_NS}::{name}", real, mutates_args=("inpt",), schema=schema)

    @op.register_fake
    def fake(inpt, *args):
        _check_rank(name, inpt, min_rank)


_define("horizontal_flip", "(Tensor inpt) -> Tensor", min_rank=1)
_define("vertical_flip", "(Tensor inpt) -> Tensor", min_rank=2)
_define("to_dtype", "(Tensor inpt, ScalarType dtype, bool scale) -> Tensor", min_rank=0,
        dtype=lambda dtype, scale: dtype)
_define("normalize", "(Tensor inpt, float[] mean, float[] std) -> Tensor", min_rank=3)
_define_inplace("normalize_", "(Tensor(a!) inpt, float[] mean, float[] std) -> ()", min_rank=3,
                eager=lambda inpt, mean, std: _C.normalize(inpt, mean, std, True))
_define("to_channels_last", "(Tensor inpt) -> Tensor", min_rank=3, layout=lambda shape, strides, out: _channels_last(out))
_define("to_contiguous", "(Tensor inpt) -> Tensor", min_rank=0, layout=lambda shape, strides, out: _contiguous(out))
_define("resize", "(Tensor inpt, SymInt[]? size, str? interpolation, SymInt? max_size, bool? antialias) -> Tensor",
        min_rank=3, shape=_resize_shape, layout=_warp)
_define("crop", "(Tensor inpt, SymInt top, SymInt left, SymInt height, SymInt width) -> Tensor", min_rank=2,
        shape=_crop_shape, layout=_warp)
_define("center_crop", "(Tensor inpt, SymInt[] output_size) -> Tensor", min_rank=2, shape=_center_crop_shape,
        layout=_warp)
_define("resized_crop", "(Tensor inpt, SymInt top, SymInt left, SymInt height, SymInt width, SymInt[] size, "
        "str? interpolation, bool? antialias) -> Tensor", min_rank=3, shape=_resized_crop_shape,
        layout=_resized_crop_layout)
_define("five_crop", "(Tensor inpt, SymInt[] size) -> Tensor[]", min_rank=2, shape=_five_crop_shapes,
        layout=_five_crop_layout)
_define("ten_crop", "(Tensor inpt, SymInt[] size, bool vertical_flip) -> Tensor[]", min_rank=2, shape=_ten_crop_shapes,
        layout=_ten_crop_layout)
_define("pad", "(Tensor inpt, SymInt[] padding, float[]? fill, str padding_mode) -> Tensor", min_rank=2,
        shape=_pad_shape, layout=_warp)
_define("rotate", "(Tensor inpt, float angle, str? interpolation, bool expand, float[]? center, float[]? fill) -> Tensor",
        min_rank=3, shape=_rotate_shape, layout=_rotate_layout)
_define("affine", "(Tensor inpt, float angle, float[] translate, float scale, float[] shear, str? interpolation, "
        "float[]? fill, float[]? center) -> Tensor", min_rank=3, layout=_warp)
_define("perspective", "(Tensor inpt, float[]? startpoints, float[]? endpoints, str? interpolation, float[]? fill, "
        "float[]? coefficients) -> Tensor", min_rank=3, layout=_warp,
        eager=lambda inpt, starts, ends, *rest: _C.perspective(inpt, _pairs(starts), _pairs(ends), *rest))
_define("elastic", "(Tensor inpt, Tensor displacement, str? interpolation, float[]? fill) -> Tensor", min_rank=3,
        layout=_warp)
_define("rgb_to_grayscale", "(Tensor inpt, int num_output_channels) -> Tensor", min_rank=3, shape=_grayscale_shape,
        layout=_grayscale_layout)
_define("grayscale_to_rgb", "(Tensor inpt) -> Tensor", min_rank=3, shape=_to_rgb_shape, layout=_grayscale_layout)
_define("adjust_brightness", "(Tensor inpt, float brightness_factor) -> Tensor", min_rank=3)
_define("adjust_saturation", "(Tensor inpt, float saturation_factor) -> Tensor", min_rank=3, layout=_image_op)
_define("adjust_contrast", "(Tensor inpt, float contrast_factor) -> Tensor", min_rank=3, layout=_image_op)
_define("adjust_sharpness", "(Tensor inpt, float sharpness_factor) -> Tensor", min_rank=3, layout=_image_op)
_define("adjust_hue", "(Tensor inpt, float hue_factor) -> Tensor", min_rank=3, layout=_image_op)
_define("adjust_gamma", "(Tensor inpt, float gamma, float gain) -> Tensor", min_rank=0)
_define("invert", "(Tensor inpt) -> Tensor", min_rank=0)
_define("posterize", "(Tensor inpt, int bits) -> Tensor", min_rank=0)
_define("solarize", "(Tensor inpt, float threshold) -> Tensor", min_rank=0)
_define("autocontrast", "(Tensor inpt) -> Tensor", min_rank=3, layout=_image_op)
_define("equalize", "(Tensor inpt) -> Tensor", min_rank=2, layout=_equalize_layout)
_define("permute_channels", "(Tensor inpt, int[] permutation) -> Tensor", min_rank=3, layout=_image_op)
_define("gaussian_blur", "(Tensor inpt, int[] kernel_size, float[]? sigma) -> Tensor", min_rank=3, layout=_image_op)
# The normals come from torch's generator when the node runs: two calls are never one value.
_define("gaussian_noise", "(Tensor inpt, float mean, float sigma, bool clip) -> Tensor", min_rank=0,
        tags=(torch.Tag.nondeterministic_seeded,))
_define("erase", "(Tensor inpt, SymInt i, SymInt j, SymInt h, SymInt w, Tensor v) -> Tensor", min_rank=2,
        eager=lambda inpt, i, j, h, w, v: _C.erase(inpt, i, j, h, w, v, False))
_define_inplace("erase_", "(Tensor(a!) inpt, SymInt i, SymInt j, SymInt h, SymInt w, Tensor v) -> ()", min_rank=2,
                eager=lambda inpt, i, j, h, w, v: _C.erase(inpt, i, j, h, w, v, True))


# ---- tracing adapters: the functionals' signatures, converting arguments to the schemas -----------

_PIL_CODES = {0: "nearest", 1: "lanczos", 2: "bilinear", 3: "bicubic", 4: "box", 5: "hamming"}


def _no_stream(name, stream):
    if stream is not None:
        raise ValueError(f"{name}: argument 'stream': expected None under torch.compile (a stream cannot be a graph "
                         "input; the op runs on the stream an eager call without stream= would use), got a "
                         f"{type(stream).__name__}")  # no repr(): Dynamo cannot trace it


def _mode(interpolation):
    """An InterpolationMode (ours, torchvision's, anything with a string .value), a name or a PIL
    code, as the mode's name."""
    if interpolation is None or isinstance(interpolation, str):
        return interpolation
    if isinstance(interpolation, int) and not isinstance(interpolation, bool):
        if interpolation not in _PIL_CODES:
            raise ValueError("interpolation_mode_from_int: argument 'pil_code': expected a PIL interpolation code "
                             f"(0 nearest, 2 bilinear, 3 bicubic, 4 box, 5 hamming, 1 lanczos), got {interpolation}")
        return _PIL_CODES[interpolation]
    value = getattr(interpolation, "value", None)
    if isinstance(value, str):
        return value
    raise TypeError(f"argument 'interpolation': expected an InterpolationMode, its name or a PIL integer code, got "
                    f"{interpolation!r}")


def _plain(x):
    """numpy arrays and tensors as Python lists or scalars (as the eager converters read them)."""
    if hasattr(x, "tolist") and not isinstance(x, (list, tuple)):
        return x.tolist()
    return x


def _seq(x):
    """A number as a one-element list; a sequence as a list."""
    x = _plain(x)
    return [x] if isinstance(x, (numbers.Number, torch.SymInt, torch.SymFloat)) else list(x)


def _opt_seq(x):
    return None if x is None else _seq(x)


def _pairs(flat):
    return None if flat is None else [flat[k:k + 2] for k in range(0, len(flat), 2)]


def _flat_points(points):
    if points is None:
        return None
    flat = []
    for p in _plain(points):
        p = _seq(p)
        if len(p) != 2:
            raise ValueError(f"perspective: argument 'startpoints/endpoints': expected points of two values [x, y], "
                             f"got {p}")
        flat += p
    return flat


def _torch_dtype(dtype):
    if isinstance(dtype, torch.dtype):
        return dtype
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None)
    if isinstance(getattr(torch, str(name), None), torch.dtype):
        return getattr(torch, name)
    raise TypeError(f"to_dtype: argument 'dtype': expected a torch.dtype or its name under torch.compile, got {dtype!r}")


def horizontal_flip(inpt, *, stream=None):
    _no_stream("horizontal_flip", stream)
    return _ops.horizontal_flip(inpt)


def vertical_flip(inpt, *, stream=None):
    _no_stream("vertical_flip", stream)
    return _ops.vertical_flip(inpt)


def to_dtype(inpt, dtype="float32", scale=False, *, stream=None):
    _no_stream("to_dtype", stream)
    return _ops.to_dtype(inpt, _torch_dtype(dtype), scale)


def normalize(inpt, mean, std, inplace=False, *, stream=None):
    _no_stream("normalize", stream)
    if inplace:
        _ops.normalize_(inpt, _seq(mean), _seq(std))
        return inpt
    return _ops.normalize(inpt, _seq(mean), _seq(std))


def to_channels_last(inpt, *, stream=None):
    _no_stream("to_channels_last", stream)
    return _ops.to_channels_last(inpt)


def to_contiguous(inpt, *, stream=None):
    _no_stream("to_contiguous", stream)
    return _ops.to_contiguous(inpt)


def resize(inpt, size, interpolation=None, max_size=None, antialias=True, *, stream=None):
    _no_stream("resize", stream)
    return _ops.resize(inpt, _opt_seq(size), _mode(interpolation), max_size, antialias)


def crop(inpt, top, left, height, width, *, stream=None):
    _no_stream("crop", stream)
    return _ops.crop(inpt, top, left, height, width)


def center_crop(inpt, output_size, *, stream=None):
    _no_stream("center_crop", stream)
    return _ops.center_crop(inpt, _seq(output_size))


def resized_crop(inpt, top, left, height, width, size, interpolation=None, antialias=True, *, stream=None):
    _no_stream("resized_crop", stream)
    return _ops.resized_crop(inpt, top, left, height, width, _seq(size), _mode(interpolation), antialias)


def five_crop(inpt, size, *, stream=None):
    _no_stream("five_crop", stream)
    return tuple(_ops.five_crop(inpt, _seq(size)))


def ten_crop(inpt, size, vertical_flip=False, *, stream=None):
    _no_stream("ten_crop", stream)
    return tuple(_ops.ten_crop(inpt, _seq(size), vertical_flip))


def pad(inpt, padding, fill=None, padding_mode="constant", *, stream=None):
    _no_stream("pad", stream)
    return _ops.pad(inpt, _seq(padding), _opt_seq(fill), padding_mode)


def rotate(inpt, angle, interpolation=None, expand=False, center=None, fill=None, *, stream=None):
    _no_stream("rotate", stream)
    return _ops.rotate(inpt, angle, _mode(interpolation), expand, _opt_seq(center), _opt_seq(fill))


def affine(inpt, angle, translate, scale, shear, interpolation=None, fill=None, center=None, *, stream=None):
    _no_stream("affine", stream)
    translate = _plain(translate)
    if isinstance(translate, numbers.Number):
        raise TypeError(f"affine: argument 'translate': expected a sequence (Argument translate should be a sequence), "
                        f"got {translate!r}")
    shear = _plain(shear)
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)  # one number shears along x only
    return _ops.affine(inpt, angle, list(translate), scale, shear, _mode(interpolation), _opt_seq(fill),
                       _opt_seq(center))


def perspective(inpt, startpoints, endpoints, interpolation=None, fill=None, coefficients=None, *, stream=None):
    _no_stream("perspective", stream)
    return _ops.perspective(inpt, _flat_points(startpoints), _flat_points(endpoints), _mode(interpolation),
                            _opt_seq(fill), _opt_seq(coefficients))


def elastic(inpt, displacement, interpolation=None, fill=None, *, stream=None):
    _no_stream("elastic", stream)
    if not isinstance(displacement, torch.Tensor):
        raise TypeError(f"elastic: argument 'displacement': expected a Tensor (Argument displacement should be a "
                        f"Tensor), got {type(displacement).__name__}")
    return _ops.elastic(inpt, displacement, _mode(interpolation), _opt_seq(fill))


def rgb_to_grayscale(inpt, num_output_channels=1, *, stream=None):
    _no_stream("rgb_to_grayscale", stream)
    return _ops.rgb_to_grayscale(inpt, num_output_channels)


def grayscale_to_rgb(inpt, *, stream=None):
    _no_stream("grayscale_to_rgb", stream)
    return _ops.grayscale_to_rgb(inpt)


def adjust_brightness(inpt, brightness_factor, *, stream=None):
    _no_stream("adjust_brightness", stream)
    return _ops.adjust_brightness(inpt, brightness_factor)


def adjust_saturation(inpt, saturation_factor, *, stream=None):
    _no_stream("adjust_saturation", stream)
    return _ops.adjust_saturation(inpt, saturation_factor)


def adjust_contrast(inpt, contrast_factor, *, stream=None):
    _no_stream("adjust_contrast", stream)
    return _ops.adjust_contrast(inpt, contrast_factor)


def adjust_sharpness(inpt, sharpness_factor, *, stream=None):
    _no_stream("adjust_sharpness", stream)
    return _ops.adjust_sharpness(inpt, sharpness_factor)


def adjust_hue(inpt, hue_factor, *, stream=None):
    _no_stream("adjust_hue", stream)
    return _ops.adjust_hue(inpt, hue_factor)


def adjust_gamma(inpt, gamma, gain=1.0, *, stream=None):
    _no_stream("adjust_gamma", stream)
    return _ops.adjust_gamma(inpt, gamma, gain)


def invert(inpt, *, stream=None):
    _no_stream("invert", stream)
    return _ops.invert(inpt)


def posterize(inpt, bits, *, stream=None):
    _no_stream("posterize", stream)
    return _ops.posterize(inpt, bits)


def solarize(inpt, threshold, *, stream=None):
    _no_stream("solarize", stream)
    return _ops.solarize(inpt, threshold)


def autocontrast(inpt, *, stream=None):
    _no_stream("autocontrast", stream)
    return _ops.autocontrast(inpt)


def equalize(inpt, *, stream=None):
    _no_stream("equalize", stream)
    return _ops.equalize(inpt)


def permute_channels(inpt, permutation, *, stream=None):
    _no_stream("permute_channels", stream)
    return _ops.permute_channels(inpt, _seq(permutation))


def gaussian_blur(inpt, kernel_size, sigma=None, *, stream=None):
    _no_stream("gaussian_blur", stream)
    return _ops.gaussian_blur(inpt, _seq(kernel_size), _opt_seq(sigma))


def gaussian_noise(inpt, mean=0.0, sigma=0.1, clip=True, *, generator=None, stream=None):
    _no_stream("gaussian_noise", stream)
    if generator is not None:
        raise ValueError("gaussian_noise: argument 'generator': expected None under torch.compile (the normals come from "
                         f"torch's generator), got a {type(generator).__name__}")  # no repr(): Dynamo cannot trace it
    return _ops.gaussian_noise(inpt, mean, sigma, clip)


def erase(inpt, i, j, h, w, v, inplace=False, *, stream=None):
    _no_stream("erase", stream)
    v = v if isinstance(v, torch.Tensor) else torch.as_tensor(v)
    if inplace:
        _ops.erase_(inpt, i, j, h, w, v)
        return inpt
    return _ops.erase(inpt, i, j, h, w, v)


def _spatial(name, inpt):
    if inpt.dim() < 2:
        raise TypeError(f"{name}: argument 'image': expected a tensor with at least two dimensions, got "
                        f"{inpt.dim()} dimensions")
    return inpt.shape


def get_dimensions(inpt):
    shape = _spatial("get_dimensions", inpt)
    return [shape[-3] if len(shape) >= 3 else 1, shape[-2], shape[-1]]


def get_num_channels(inpt):
    shape = _spatial("get_num_channels", inpt)
    return shape[-3] if len(shape) >= 3 else 1


def get_size(inpt):
    shape = _spatial("get_size", inpt)
    return [shape[-2], shape[-1]]
