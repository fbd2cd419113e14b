"""Builds the native core, `mathy_envs._native` (C++ sources in `native/`).

Everything else about the package is in pyproject.toml. The extension is
optional: where it can't be compiled (no C++17 compiler), the install still
succeeds and mathy_envs runs on its pure-Python core (`mathy-envs --version`
names the core in use).
"""

import os

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

SOURCES = [
    "native/expression.cpp",
    "native/rules.cpp",
    "native/apply.cpp",
    "native/terms.cpp",
    "native/values.cpp",
    "native/admission.cpp",
    "native/hashing.cpp",
    "native/bindings.cpp",
]

extensions = []
if os.environ.get("MATHY_ENVS_BUILD_NATIVE", "1") != "0":
    extensions.append(
        Pybind11Extension(
            "mathy_envs._native",
            SOURCES,
            depends=["native/expression.hpp"],
            cxx_std=17,
            optional=True,
        )
    )

setup(ext_modules=extensions, cmdclass={"build_ext": build_ext})
