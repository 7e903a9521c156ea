"""The public Python API is documented: every public class and callable of the documented modules
(their ``__all__``) has a docstring, and the docstring names each of its parameters (a class's
docstring, or its ``__init__``'s, names the constructor's). The typed signatures of the
functionals are checked against the compiled kernels' so they cannot drift apart."""

import ast
import enum
import importlib
import inspect
import re

import pytest

MODULES = [
    "streamvision",
    "streamvision.transforms.v2",
    "streamvision.transforms.v2.functional",
    "streamvision.torch",
    "streamvision.torchvision",
]


def _module(name):
    if name == "streamvision.torch":
        pytest.importorskip("torch")
    return importlib.import_module(name)


def _nb_signature(obj):
    """(parameter names, docstring text) of a nanobind function or method, from __nb_signature__
    (nanobind functions have no inspect.signature)."""
    names, docs = [], []
    for sig, doc, _defaults in obj.__nb_signature__:
        sig = re.sub(r"\\\d+", "None", sig)  # default values are given as placeholders
        tree = ast.parse(sig + ": pass").body[0]
        names += [a.arg for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
        docs.append(doc or "")
    return [n for n in dict.fromkeys(names) if n != "self"], "\n".join(docs)


def _parameters_and_doc(obj):
    """(the parameters a docstring must name, the docstring text to search)."""
    if inspect.isclass(obj):
        doc = inspect.cleandoc(obj.__doc__) if obj.__doc__ else None  # its own, not a base class's
        if issubclass(obj, (enum.Enum, BaseException)):
            return [], doc
        init = obj.__init__
        if hasattr(init, "__nb_signature__"):
            names, init_doc = _nb_signature(init)
        elif init is object.__init__ or not hasattr(init, "__code__"):
            names, init_doc = [], ""
        else:
            names = _named_parameters(init)[1:]
            init_doc = inspect.getdoc(init) if init.__doc__ else ""
        return names, "\n".join(d for d in (doc, init_doc) if d) or None
    if hasattr(obj, "__nb_signature__"):
        names, doc = _nb_signature(obj)
        return names, doc or None
    return _named_parameters(obj), inspect.getdoc(obj) if obj.__doc__ else None


def _named_parameters(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _public(module_name):
    module = _module(module_name)
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj):
            yield f"{module_name}.{name}", obj


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_has_a_docstring_naming_its_parameters(module_name):
    assert _module(module_name).__doc__, f"{module_name} has no module docstring"
    problems = []
    for qualname, obj in _public(module_name):
        if inspect.ismodule(obj):
            if not obj.__doc__:
                problems.append(f"{qualname}: no module docstring")
            continue
        params, doc = _parameters_and_doc(obj)
        if not doc or not doc.strip():
            problems.append(f"{qualname}: no docstring")
            continue
        missing = [p for p in params if not re.search(rf"(?<![\w.]){re.escape(p)}\b", doc)]
        if missing:
            problems.append(f"{qualname}: docstring does not mention {', '.join(missing)}")
    assert not problems, "\n".join(problems)


def test_module_lists_are_complete():
    # what a module exports without listing it would escape the walk above
    for module_name in MODULES:
        module = _module(module_name)
        unlisted = [n for n, v in vars(module).items()
                    if not n.startswith("_") and n not in module.__all__ and _defined_in(v, module_name)
                    and (inspect.isfunction(v) or inspect.isclass(v))]
        assert not unlisted, f"{module_name}: public but not in __all__: {unlisted}"


def _defined_in(obj, module_name):
    where = getattr(obj, "__module__", None) or ""
    return where == module_name or where.startswith(module_name + "._")


def _kernel_names():
    from streamvision.transforms.v2.functional import _kernels

    return _kernels.__all__


@pytest.mark.parametrize("name", _kernel_names())
def test_functional_signatures_match_the_kernels(name):
    """The typed Python signature of each functional has the compiled kernel's parameters, kinds and
    defaults (the functionals forward their arguments to it)."""
    import streamvision._C as C
    import streamvision.transforms.v2.functional as F

    (sig, _doc, defaults), = getattr(C, name).__nb_signature__
    tree = ast.parse(re.sub(r"\\(\d+)", r"_DEFAULT_\1", sig) + ": pass").body[0]

    def default(node):
        if node is None:
            return inspect.Parameter.empty
        if isinstance(node, ast.Name) and node.id.startswith("_DEFAULT_"):
            return defaults[int(node.id[len("_DEFAULT_"):])]
        return ast.literal_eval(node)

    args = tree.args
    want = [(a.arg, "POSITIONAL_OR_KEYWORD", default(d))
            for a, d in zip(args.args, [None] * (len(args.args) - len(args.defaults)) + args.defaults)]
    want += [(a.arg, "KEYWORD_ONLY", default(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    got = [(p.name, p.kind.name, p.default) for p in inspect.signature(getattr(F, name)).parameters.values()]
    assert got == want


@pytest.mark.parametrize("module_name, page", [("streamvision", "streamvision.rst"),
                                                ("streamvision.transforms.v2.functional", "functional.rst")])
def test_hand_written_api_pages_list_every_public_name(module_name, page):
    """docs/api pages that list names by hand (grouped by theme) name each public one of the module
    (the other API pages use automodule, which follows __all__)."""
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "api" / page).read_text()
    module = _module(module_name)
    missing = [n for n in module.__all__ if not inspect.ismodule(getattr(module, n))
               and not re.search(rf"(?<![\w]){re.escape(n)}\b", text)]
    assert not missing, f"docs/api/{page} does not mention {missing}"
