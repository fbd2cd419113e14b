"""Stand-in for the native core, `mathy_envs._native`, where it is not built.

The native core is a C++ extension module of the same name, built from `native/`
when the package is installed with a C++17 compiler. Where it is built, its file
(`_native.<platform tag>.so`, or `.pyd`) sits next to this one, and Python loads
it instead of this file: a folder's extension modules are tried before its source
files. This file is loaded only where no extension was built. It raises
ModuleNotFoundError (the compiled module is not found; an ImportError, as
importing a module that does not exist raises), and mathy_envs runs on its
pure-Python core (or, with `MATHY_ENVS_CORE=native`, refuses to run).

It also makes the module known to tools that read source files only: the
import-linter contract that only `mathy_envs._engine` imports the native core
needs the module to exist. Its types are in `_native.pyi`, which mypy reads in
place of this file.
"""

raise ModuleNotFoundError(
    "the compiled mathy_envs._native is not here, only its stand-in mathy_envs/_native.py "
    "(mathy_envs was installed without a C++17 compiler)",
    name=__name__,
)
