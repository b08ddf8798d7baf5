"""The compiled kernels: the statistics fast path (``harness/bleu/_native.c``) and Kendall's
τ-b interval (``harness/statistics/_kendall.c``).

Everything else is declared in ``pyproject.toml``. The extensions use only the C API of the
Python they are built for (no numpy headers), so ``pip install`` builds them with the machine's
C compiler. They are optional: where they cannot be built the package still installs, the numpy
paths compute instead (the same numbers), and ``harness.bleu.native.status()`` says why.

A failed compile prints a warning to stderr here, but installers show a build's output only
when the build fails or when asked to be verbose (``pip -v``; ``uv pip install`` shows none),
so the package also warns when it first counts without the kernels
(``harness.bleu.native.KernelsMissing``).
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

WARNING = """
********************************************************************************
WARNING: bleu-harness's compiled kernels ({name}, from {sources}) were not built:
    {error}
bleu-harness installs and works without them: the numpy path counts the statistics
instead (the same numbers, slower).
To build them, install a C compiler and the Python headers (Debian/Ubuntu:
apt-get install gcc python3-dev), then reinstall: pip install -e .
This prints which one counts:
    python -c "from harness.bleu import native; print(native.status())"
********************************************************************************
"""


class BuildKernels(build_ext):
    """``build_ext`` that says loudly, on stderr, when an optional extension fails to build
    (setuptools only logs one line, which a quiet install hides)."""

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except (CCompilerError, BaseError) as exc:  # what setuptools forgives an optional one
            if ext.optional:
                sources = ", ".join(ext.sources)
                print(WARNING.format(name=ext.name, sources=sources, error=exc), file=sys.stderr)
            raise


setup(
    cmdclass={"build_ext": BuildKernels},
    ext_modules=[
        Extension(
            "harness.bleu._native",
            ["harness/bleu/_native.c"],
            extra_compile_args=["-O3"],
            optional=True,
        ),
        Extension(
            "harness.statistics._kendall",
            ["harness/statistics/_kendall.c"],
            extra_compile_args=["-O3"],
            optional=True,
        ),
    ],
)
