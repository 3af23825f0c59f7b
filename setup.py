"""The C search of the exact solver (app/bots/_dds.c); optional: without a compiler the
package installs anyway and app/bots/dds.py uses its Python search."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("app.bots._dds", ["app/bots/_dds.c"], optional=True, extra_compile_args=["-O2"])
    ]
)
