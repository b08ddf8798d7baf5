"""The compiled kernels of the statistics fast path (``harness/bleu/_native.c``).

Everything else is declared in ``pyproject.toml``. The extension uses only the C API of the
Python it is built for (no numpy headers), so ``pip install`` builds it with the machine's C
compiler. It is optional: where it cannot be built the package still installs, the numpy path
counts instead (the same statistics), and ``harness.bleu.native.status()`` says why.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "harness.bleu._native",
            ["harness/bleu/_native.c"],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
