"""What pyproject.toml cannot say: the native core and the start-up files.

- The native core, `mathy_envs._native` (C++ sources in `native/`). The extension
  is optional: where it can't be compiled (no C++17 compiler), the install still
  succeeds and mathy_envs runs on its pure-Python core (`mathy-envs --version`
  names the core in use).
- `mathy_envs_typing_io.pth` and `mathy_envs_typing_io.start`, which must sit at
  the top of site-packages, next to the `_mathy_envs_typing_io` module (see its
  docstring): `build_py` puts them at the root of the wheel, regular or editable.

Everything else about the package is in pyproject.toml.
"""

import os
from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent

STARTUP_FILES = ("mathy_envs_typing_io.pth", "mathy_envs_typing_io.start")
"""Installed at the top of site-packages. Their name sorts after the
`__editable__.*.pth` of an editable install, whose import finder (which finds
`_mathy_envs_typing_io` in the checkout) must be in place before they run."""


class BuildPyWithStartupFiles(build_py):
    """`build_py` that also puts `STARTUP_FILES` at the root of the wheel.

    A regular wheel holds what is in `build_lib`. An editable wheel holds what is
    installed into `install_lib` instead (its `build_lib` is a scratch folder), so
    in editable mode the files go there."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            target = Path(self.get_finalized_command("install").install_lib)
        else:
            target = Path(self.build_lib)
        self.mkpath(str(target))
        for name in STARTUP_FILES:
            self.copy_file(str(ROOT / name), str(target / name), preserve_mode=False)


SOURCES = [
    "native/expression.cpp",
    "native/rules.cpp",
    "native/apply.cpp",
    "native/terms.cpp",
    "native/values.cpp",
    "native/admission.cpp",
    "native/hashing.cpp",
    "native/flat.cpp",
    "native/checks.cpp",
    "native/problems.cpp",
    "native/batch.cpp",
    "native/bindings.cpp",
]

extensions = []
if os.environ.get("MATHY_ENVS_BUILD_NATIVE", "1") != "0":
    extensions.append(
        Pybind11Extension(
            "mathy_envs._native",
            SOURCES,
            depends=[
                "native/expression.hpp",
                "native/flat.hpp",
                "native/checks.hpp",
                "native/draws.hpp",
                "native/problems.hpp",
            ],
            cxx_std=17,
            optional=True,
        )
    )

setup(
    ext_modules=extensions,
    cmdclass={"build_ext": build_ext, "build_py": BuildPyWithStartupFiles},
)
