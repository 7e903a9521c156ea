"""Functions generated with another function's exact parameters, for the call paths every op takes.

A wrapper written as ``def f(*args, **kwargs): return g(*args, **kwargs)`` costs about twice as
much per call as one with explicit parameters, and on a small image the Python layers are most
of a call's host time. `make` writes the explicit version once, at import."""

import inspect


class Parameters:
    """`fn`'s parameters as source: `declare` (the parameter list, defaults named ``_default_<p>``),
    `positional` and `keywords` (the names, to forward them), `defaults` (values by those names)."""

    def __init__(self, fn):
        declare, self.positional, self.keywords, self.defaults = [], [], [], {}
        for p in inspect.signature(fn).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{fn.__name__}: *args / **kwargs cannot be forwarded explicitly")
            if p.kind is p.KEYWORD_ONLY and not self.keywords:
                declare.append("*")
            (self.keywords if p.kind is p.KEYWORD_ONLY else self.positional).append(p.name)
            if p.default is p.empty:
                declare.append(p.name)
            else:
                self.defaults[f"_default_{p.name}"] = p.default
                declare.append(f"{p.name}=_default_{p.name}")
        self.declare = ", ".join(declare)

    def call(self, skip_first=False, keywords=True):
        """The argument list that forwards them: positional ones by position (without the first,
        the input, when `skip_first`), keyword-only ones by keyword."""
        names = self.positional[1:] if skip_first else self.positional
        return ", ".join(names + ([f"{k}={k}" for k in self.keywords] if keywords else []))


def make(name, params, body, closure):
    """The function `name` with the parameters `params` (a Parameters) whose body is `body` (source
    lines, indented by four spaces, that may use the parameters and the names in `closure`). Everything it uses is a
    closure variable: TorchDynamo resolves a function's globals through its module name, which
    generated functions would share."""
    variables = {**closure, **params.defaults}
    lines = [f"def _make({', '.join(variables)}):", f"    def {name}({params.declare}):"]
    lines += ["    " + line for line in body]
    lines += [f"    return {name}"]
    scope = {"__name__": __name__}
    exec("\n".join(lines), scope)
    return scope["_make"](**variables)
