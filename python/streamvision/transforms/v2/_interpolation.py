import enum


class InterpolationMode(enum.Enum):
    """torchvision.transforms.InterpolationMode's values; torchvision's own enum, its names and
    PIL integer codes are accepted wherever a mode is."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"
