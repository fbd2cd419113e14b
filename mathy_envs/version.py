"""The version of mathy_envs (read by the build and `mathy-envs --version`)."""

__version__ = "1.0.0"

__all__ = ("__version__",)
