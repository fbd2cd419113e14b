"""Build step that pyproject.toml cannot express: ship `mathy_envs_typing_io.pth`.

The `.pth` file must sit at the top of site-packages, where the interpreter reads
it at startup (see `_mathy_envs_typing_io.py`). Everything else about the build is
in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

STARTUP_HOOK = "mathy_envs_typing_io.pth"
"""Its name sorts after the `__editable__*.pth` of an editable install, whose import
finder must be in place before the hook imports `_mathy_envs_typing_io`."""


class BuildPyWithStartupHook(build_py):
    """`build_py` that also puts the startup hook at the root of the wheel.

    A regular wheel gets everything in `build_lib`. An editable wheel ignores
    `build_lib` and holds what is installed into `install_lib` instead, so the
    file goes there in editable mode."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            target = self.get_finalized_command("install").install_lib
        else:
            target = self.build_lib
        self.copy_file(
            str(Path(__file__).resolve().parent / STARTUP_HOOK),
            str(Path(target) / STARTUP_HOOK),
            preserve_mode=False,
        )


setup(cmdclass={"build_py": BuildPyWithStartupHook})
