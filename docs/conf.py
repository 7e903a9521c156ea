"""Sphinx configuration of streamvision's documentation (built by scripts/docs into build/docs).

The API pages come from the docstrings of the installed (or PYTHONPATH) package through autodoc
and Napoleon (Google style); the other pages are Markdown (MyST), several of them including the
repository's own files (README.md sections, docs/ARCHITECTURE.md, bench/RESULTS.md) so that each
text exists once.
"""

import enum
import inspect
import os
import pathlib
import shutil
import subprocess
import sysconfig

ROOT = pathlib.Path(__file__).resolve().parent.parent

project = "streamvision"
author = "the streamvision authors"
release = version = (ROOT / "VERSION").read_text().strip()
copyright = "the streamvision authors, Apache License 2.0"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.intersphinx", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

myst_heading_anchors = 3
# The included repository files link to each other by path (README -> bench/RESULTS.md); those
# links are for GitHub readers and have no page of their own in the site.
suppress_warnings = ["myst.xref_missing"]

autodoc_member_order = "bysource"
autoclass_content = "both"  # the class docstring and __init__'s (the compiled classes document their constructors there)
autodoc_inherit_docstrings = False  # not torch.nn.Module.__init__'s for transforms without their own
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_default_options = {"members": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_custom_sections = ["Supported dtypes and devices", "Stream", "Differences from torchvision"]

intersphinx_mapping = {}  # the build runs offline (CI, the GPU machine)

html_theme = "alabaster"
html_title = f"streamvision {release}"


def _cli_help():
    """docs/_generated/cli-help.txt: the program's --help, when the program is installed."""
    out = pathlib.Path(__file__).parent / "_generated" / "cli-help.txt"
    out.parent.mkdir(exist_ok=True)
    # the console command next to this interpreter (a venv's bin, not necessarily on PATH), else PATH's
    exe = shutil.which("streamvision", path=sysconfig.get_path("scripts")) or shutil.which("streamvision")
    text = None
    if exe:
        try:
            text = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60,
                                  env={**os.environ, "CUDA_VISIBLE_DEVICES": ""}).stdout
        except (OSError, subprocess.SubprocessError):
            text = None
    out.write_text(text or "(the streamvision program is not installed where this site was built; run "
                           "`streamvision --help`)\n")


_cli_help()


class _Text:
    """An annotation or default shown as its source text (annotations are strings here)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _constructor_signature(app, what, name, obj, options, signature, return_annotation):
    """The transform classes' signatures are their __init__'s: Transform.__new__ takes
    (*args, **kwargs) to set up nn.Module state, which autodoc would show instead."""
    if what != "class" or not isinstance(obj, type) or issubclass(obj, enum.Enum) or "__new__" not in {k for c in obj.__mro__[:-1] for k in vars(c)}:
        return None
    init = next((vars(c)["__init__"] for c in obj.__mro__ if "__init__" in vars(c)), None)
    if init is None or not inspect.isfunction(init):
        return None
    params = []
    for p in list(inspect.signature(init).parameters.values())[1:]:
        annotation = p.annotation if p.annotation is p.empty else _Text(str(p.annotation))
        default = p.default
        if isinstance(default, enum.Enum):
            default = _Text(f"{type(default).__name__}.{default.name}")
        params.append(p.replace(annotation=annotation, default=default))
    return str(inspect.Signature(params)), None


def setup(app):
    app.connect("autodoc-process-signature", _constructor_signature)
