"""What every pipeline process pays before it starts: numpy's submodules that nothing here uses, deferred, and
jsonschema's ``iri`` format checkers skipped.

scipy (>= 1.15) imports its vendored ``array_api_compat.numpy`` with ``scipy.special``, and that module copies
every public name of numpy (``from numpy import *`` and ``getattr`` over ``dir(numpy)``).  numpy loads its public
submodules lazily, on first attribute access, so the copy imports all of them, among them :mod:`numpy.f2py`
(which imports ``charset_normalizer``) and :mod:`numpy.testing` (``unittest``, ``importlib.metadata``): about 0.1 s
of CPU in every job and every notebook kernel, for modules no job and no notebook uses.

:func:`defer_unused_numpy_submodules` registers those two as lazy modules (:class:`importlib.util.LazyLoader`, the
standard library's mechanism for this, installed by an import hook, so that calling it imports nothing) before scipy
is imported: the copy then holds the module objects without executing them, and the first attribute access anywhere
(``numpy.testing.assert_allclose``) loads the real module in place, so every name works as before.  Nothing changes
in what any computation returns.

:func:`skip_iri_format_checkers` keeps jsonschema from loading ``rfc3987_syntax`` (installed with Jupyter's
``jsonschema[format-nongpl]``), whose import compiles ~35 Earley parsers: about 1.3 s of CPU idle (3.5 s under load)
in every process that imports jsonschema, which are the render jobs (nbformat) and every Snakemake process that reads
the Snakefile (its config checks, :mod:`.config`): the main run, ``-n``, ``--lint``, ``--report``, and on a cluster
every job's own Snakemake.
"""

from __future__ import annotations

import sys

#: numpy's lazily loaded public submodules that scipy's import would load and no pipeline process uses
DEFERRED = ("numpy.f2py", "numpy.testing")


class _LazyFinder:
    """An import hook (a ``sys.meta_path`` finder) that gives each of ``names`` a lazily executed module when it is
    imported: the spec any later finder gives, its loader wrapped in :class:`importlib.util.LazyLoader`."""

    def __init__(self, names: tuple[str, ...]):
        self.names = frozenset(names)

    def find_spec(self, name, path=None, target=None):
        if name not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            import importlib.util

            spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


def defer_unused_numpy_submodules(names: tuple[str, ...] = DEFERRED) -> list[str]:
    """Make each of ``names`` not yet imported a lazily executed module when it is imported; the names so deferred.

    An import hook (:class:`_LazyFinder`), so numpy itself is not imported here (the job server's client,
    :mod:`.jobserver`, never loads it): the import that scipy's copy makes (numpy's ``__getattr__``) then gets a
    module object whose code runs on first attribute access.  A no-op once scipy's array-API layer is imported (the
    copy has then happened), for a module already imported, and when called again."""
    if "scipy._lib._array_api" in sys.modules:
        return []
    todo = tuple(n for n in names if n not in sys.modules)
    if todo and not any(isinstance(f, _LazyFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _LazyFinder(todo))
    return list(todo)


def skip_iri_format_checkers() -> None:
    """Keep jsonschema from loading ``rfc3987_syntax`` (module docstring; python-jsonschema/jsonschema#1428), for the
    ``iri`` and ``iri-reference`` formats that neither the config schema nor any notebook schema uses.  jsonschema
    registers those two checkers only when that import succeeds, so an entry of None in ``sys.modules`` (an
    ImportError on import) leaves every other format checker as it was.  A module already imported is kept.
    Call it before jsonschema is imported; it changes this process only."""
    sys.modules.setdefault("rfc3987_syntax", None)
