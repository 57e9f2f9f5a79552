"""What a pooled kernel runs inside itself: the warm-up imports and the reset between notebooks.

Called in the kernel through :data:`relmodel.report.kernels.pool` code strings; never imported by the
process that drives the kernels.
"""

import os

__all__ = ["warm_kernel", "reset_kernel", "import_modules"]

_SNAPSHOT = {}


def import_modules():
    """Import the report's modules and load relmodel's lazy names (in a kernel or a kernel's zygote)."""
    import matplotlib  # noqa: F401
    import matplotlib.pyplot  # noqa: F401 (the inline backend hooks in when the backend loads)
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401

    import relmodel.checkpoint  # noqa: F401
    import relmodel.data
    import relmodel.plots
    import relmodel.report  # (what the notebooks import)
    import relmodel.scale  # noqa: F401
    import relmodel.stats  # noqa: F401
    import relmodel.stragglers  # noqa: F401

    for face in (relmodel.data, relmodel.plots, relmodel.report):  # these load on first use: load them now
        for name in face.__all__:
            getattr(face, name)


def warm_kernel():
    """Import the report's modules and remember the state a notebook may change (in a kernel)."""
    import sys
    import warnings

    import matplotlib
    import numpy

    import_modules()

    # pyplot loads its backend on first use: load it now, so the inline backend hooks in
    # (interactive mode, figures shown after each cell) before the snapshot is taken
    matplotlib.pyplot.switch_backend(matplotlib.rcParams["backend"])
    _SNAPSHOT.update(
        rc=matplotlib.rcParams.copy(), backend=matplotlib.get_backend(), path=list(sys.path),
        environ=dict(os.environ), filters=list(warnings.filters), showwarning=warnings.showwarning,
        seterr=numpy.geterr(), printoptions=numpy.get_printoptions())


def reset_kernel(cwd):
    """Put a kernel back to the state :func:`warm_kernel` saw, in folder ``cwd`` (in a kernel)."""
    import gc
    import random
    import sys
    import warnings

    import matplotlib
    import matplotlib.pyplot as plt
    import numpy
    import pandas
    from IPython import get_ipython

    from .records import forget

    shell = get_ipython()
    if shell is not None:
        shell.reset(new_session=True)
    plt.close("all")
    if matplotlib.get_backend() != _SNAPSHOT["backend"]:
        plt.switch_backend(_SNAPSHOT["backend"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dict.update(matplotlib.rcParams, _SNAPSHOT["rc"])
        pandas.reset_option("all")
    _reset_inline()
    forget()
    os.chdir(cwd)
    sys.path[:] = _SNAPSHOT["path"]
    os.environ.clear()
    os.environ.update(_SNAPSHOT["environ"])
    warnings.filters[:] = _SNAPSHOT["filters"]
    warnings.showwarning = _SNAPSHOT["showwarning"]
    getattr(warnings, "_filters_mutated", lambda: None)()
    numpy.seterr(**_SNAPSHOT["seterr"])
    numpy.set_printoptions(**_SNAPSHOT["printoptions"])
    random.seed()
    numpy.random.seed()
    gc.collect()


def _reset_inline():
    """Forget figures the inline backend was asked to draw."""
    try:
        from matplotlib_inline import backend_inline
    except ImportError:  # pragma: no cover - comes with ipykernel
        return
    show = backend_inline.show
    if hasattr(show, "_to_draw"):
        show._to_draw = []
    if hasattr(show, "_draw_called"):
        show._draw_called = False
