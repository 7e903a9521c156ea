"""Batch functionals: one call for a batch whose images each have their own parameters."""

from streamvision import _C


def resized_crop_batch(images, boxes, size, interpolation=None, antialias=True, hflip=None, dtype=None, scale=True,
                       mean=None, std=None, window=None, *, memory_format=None, stream=None):
    """Crops, resizes and optionally flips, converts and normalizes each image of a batch with its own box.

    Image ``i`` of the result equals ``normalize(to_dtype(hflip?(resized_crop(images[i], *boxes[i], size,
    interpolation, antialias)), dtype, scale), mean, std)`` bit for bit, the steps after the resize each
    optional.

    Args:
        images: a tensor ``[N, C, H, W]`` or a sequence of ``[C, H, W]`` tensors of different sizes (one
            device, dtype and channel count).
        boxes: int64 ``[N, 4]`` (top, left, height, width) per image, on the images' device; or a
            sequence of 4 ints, one box for every image (on CUDA its values travel in the kernel's
            arguments: nothing is filled or copied on the device).
        size: ``[height, width]`` of every output image.
        interpolation: an InterpolationMode (bilinear by default).
        antialias: as resize's.
        hflip: bool ``[N]`` on the images' device (flip image i horizontally after the resize); a
            Python bool, one flip for every image; or None.
        dtype: the output dtype (to_dtype with ``scale``), or None to keep the input's.
        scale: as to_dtype's.
        mean, std: per-channel normalization after the conversion, or None.
        window: ``(resize_h, resize_w, top, left)`` for a crop after the resize (Resize then CenterCrop):
            each box is resized to ``resize_h x resize_w`` and the output is its ``size`` window at
            ``(top, left)``, before the flip; None: the output is the whole resized box.
        memory_format: keyword-only; ``torch.channels_last`` for a channels-last result (as the per-image ops
            give for channels-last images; the kernels write it directly), else (None,
            ``torch.contiguous_format``) a contiguous one.
        stream: keyword-only; as every op's (the caller's current stream by default).

    Returns:
        One tensor ``[N, C, height, width]``.

    Devices and dtypes: CPU (every mode, uint8 and float images; the per-image ops in a loop) and CUDA
    (bilinear with antialias for uint8 and float32 images, one launch per 192 images, two for float32 images at milder
    scales than about 3x each way and for downscales beyond about 20x; no
    synchronisation, capturable in CUDA graphs; output float32, float16, bfloat16 or the input's dtype).
    On CUDA, boxes outside their image are clamped into it (the device cannot raise); on the CPU they raise.
    """
    if not hasattr(images, "unbind"):
        images = list(images)  # a batch tensor goes as it is: its images are views made in C++
    channels_last = False
    if memory_format is not None:
        import torch

        if memory_format not in (torch.channels_last, torch.contiguous_format):
            raise ValueError(f"resized_crop_batch: memory_format: expected torch.contiguous_format or torch.channels_last, "
                             f"got {memory_format}")
        channels_last = memory_format == torch.channels_last
    return _C.resized_crop_batch(images, boxes, list(size), interpolation, antialias, hflip, dtype, scale, mean, std,
                                 None if window is None else list(window), channels_last=channels_last, stream=stream)


def resized_crop_boxes(random, sizes, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), *, stream=None):
    """RandomResizedCrop's boxes for a batch, from uniform random numbers: torchvision's get_params per image.

    Image ``i`` (of size ``sizes[i]``) gets ``attempts = random.shape[1] // 2 - 1`` tries (torchvision: 10)
    of an area fraction ``uniform(scale)`` (from ``random[i, 2a]``) and a log aspect ratio
    ``uniform(log(ratio))`` (from ``random[i, 2a + 1]``), both in float32 as torchvision draws them; the first
    box ``w = round(sqrt(area * fraction * aspect))``, ``h = round(sqrt(area * fraction / aspect))`` that fits is
    placed at ``floor(random[i, -2] * (H - h + 1))``, ``floor(random[i, -1] * (W - w + 1))``; if none fits, the
    centred box of the in-range ratio closest to the image's. With ``random = torch.rand(N, 22, device=...)``
    the boxes follow torchvision's distribution; on CUDA this is one launch (the sizes travel in its
    arguments), so sampling a batch never synchronises and replays with new numbers in a CUDA graph.

    Args:
        random: float32 ``[N, 2 * attempts + 2]``, values in ``[0, 1)``, on the device the boxes are wanted on.
        sizes: ``N`` pairs ``(height, width)``, each positive.
        scale, ratio: RandomResizedCrop's ``(min, max)`` ranges (``0 < ratio min``).
        stream: keyword-only; as every op's.

    Returns:
        int64 ``[N, 4]``: ``(top, left, height, width)`` per image, on ``random``'s device.
    """
    return _C.resized_crop_boxes(random, sizes, list(scale), list(ratio), stream=stream)


def color_jitter_params(random, ranges, *, stream=None):
    """ColorJitter's per-image parameters for a batch, from uniform random numbers.

    Image ``i``'s order of the four ops (0 brightness, 1 contrast, 2 saturation, 3 hue) is the argsort of
    ``random[i, :4]`` (every permutation equally likely, as torchvision's ``randperm(4)``), and op ``k``'s
    factor is ``random[i, 4 + k]`` mapped onto ``ranges[k]`` as torch's ``uniform_`` maps it (float32, then
    float64), or 0 when ``ranges[k]`` is None. With ``random = torch.rand(N, 8, device=...)`` the draws follow
    torchvision's distributions; on CUDA this is one launch, so sampling never synchronises and replays with
    new numbers in a CUDA graph.

    Args:
        random: float32 ``[N, 8]``, values in ``[0, 1)``.
        ranges: four ranges, brightness, contrast, saturation, hue: each ``(min, max)`` or None.
        stream: keyword-only; as every op's.

    Returns:
        ``(factors, order)``: float64 ``[N, 4]`` and int64 ``[N, 4]`` on ``random``'s device, as
        :func:`color_jitter_batch` takes them.
    """
    return _C.color_jitter_params(random, [None if r is None else list(r) for r in ranges], stream=stream)


def color_jitter_batch(images, factors, order, enabled=(True, True, True, True), *, dtype=None, scale=True, mean=None,
                       std=None, stream=None):
    """ColorJitter's four ops on each image of a batch with that image's own factors and order.

    Image ``i`` of the result equals, for ``k`` in ``order[i]`` (a permutation of 0 brightness, 1
    contrast, 2 saturation, 3 hue) where ``enabled[k]``, ``adjust_<op k>(image, factors[i][k])``
    applied in turn, bit for bit.

    Args:
        images: a batch ``[N, C, H, W]`` (3 channels on CUDA; 1 or 3 on the CPU).
        factors: float64 ``[N, 4]``: brightness, contrast, saturation, hue factors.
        order: int64 ``[N, 4]``: the order of the ops per image.
        enabled: four booleans: which ops apply (ColorJitter's None ranges are disabled).
        dtype, scale: keyword-only; then ``to_dtype(result, dtype, scale=scale)`` (none by default).
        mean, std: keyword-only; then ``normalize(result, mean, std)`` (a float result; both or neither).
        stream: keyword-only; as every op's.

    Returns:
        A tensor like ``images`` (of ``dtype`` when given). With ``dtype``/``mean`` it equals the jitter
        followed by those ops bit for bit; on CUDA, for uint8 and float32 images, all of it is one pass.

    On CUDA: one pass over the batch for the four steps (plus one reduction for the contrast means
    when contrast is enabled), no synchronisation, capturable; factors are not range-checked there
    (the device cannot raise): a hue factor outside [-0.5, 0.5] (or NaN) and an order entry outside
    0-3 leave that step out, and a repeated contrast blends with the mean taken before the first.
    The CPU checks them and raises.
    """
    return _C.color_jitter_batch(images, factors, order, [bool(e) for e in enabled], dtype=dtype, scale=scale,
                                 mean=None if mean is None else list(mean), std=None if std is None else list(std),
                                 stream=stream)
