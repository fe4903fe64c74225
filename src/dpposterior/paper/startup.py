"""What every pipeline process pays before it starts: numpy's submodules that nothing here uses, deferred, and
jsonschema's ``iri`` format checkers skipped.

scipy (>= 1.15) imports its vendored ``array_api_compat.numpy`` with ``scipy.special``, and that module copies
every public name of numpy (``from numpy import *`` and ``getattr`` over ``dir(numpy)``).  numpy loads its public
submodules lazily, on first attribute access, so the copy imports all of them, among them :mod:`numpy.f2py`
(which imports ``charset_normalizer``) and :mod:`numpy.testing` (``unittest``, ``importlib.metadata``): about 0.1 s
of CPU in every job and every notebook kernel, for modules no job and no notebook uses.

:func:`defer_unused_numpy_submodules` registers those two as lazy modules (:class:`importlib.util.LazyLoader`, the
standard library's mechanism for this) before scipy is imported: the copy then holds the module objects without
executing them, and the first attribute access anywhere (``numpy.testing.assert_allclose``) loads the real module
in place, so every name works as before.  Nothing changes in what any computation returns.

:func:`skip_iri_format_checkers` keeps jsonschema from loading ``rfc3987_syntax`` (installed with Jupyter's
``jsonschema[format-nongpl]``), whose import compiles ~35 Earley parsers: about 1.3 s of CPU idle (3.5 s under load)
in every process that imports jsonschema, which are the render jobs (nbformat) and every Snakemake process that reads
the Snakefile (its config checks, :mod:`.config`): the main run, ``-n``, ``--lint``, ``--report``, and on a cluster
every job's own Snakemake.
"""

from __future__ import annotations

import importlib.util
import sys

#: numpy's lazily loaded public submodules that scipy's import would load and no pipeline process uses
DEFERRED = ("numpy.f2py", "numpy.testing")


def defer_unused_numpy_submodules(names: tuple[str, ...] = DEFERRED) -> list[str]:
    """Register each of ``names`` (not yet imported) as a lazily executed module; the names so registered.

    A no-op once scipy's array-API layer is imported (the copy has then happened) or for a module already
    imported; numpy itself is imported (every pipeline process imports it anyway)."""
    if "scipy._lib._array_api" in sys.modules:
        return []
    done = []
    for name in names:
        if name in sys.modules:
            continue
        parent_name, _, child = name.rpartition(".")
        spec = importlib.util.find_spec(name)  # imports the parent package (numpy)
        if spec is None or spec.loader is None or name in sys.modules:
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)  # executes nothing yet: on first attribute access
        # as the import system does: the parent's attribute, so numpy's own __getattr__ never runs for it
        setattr(sys.modules[parent_name], child, module)
        done.append(name)
    return done


def skip_iri_format_checkers() -> None:
    """Keep jsonschema from loading ``rfc3987_syntax`` (module docstring; python-jsonschema/jsonschema#1428), for the
    ``iri`` and ``iri-reference`` formats that neither the config schema nor any notebook schema uses.  jsonschema
    registers those two checkers only when that import succeeds, so an entry of None in ``sys.modules`` (an
    ImportError on import) leaves every other format checker as it was.  A module already imported is kept.
    Call it before jsonschema is imported; it changes this process only."""
    sys.modules.setdefault("rfc3987_syntax", None)
