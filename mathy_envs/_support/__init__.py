"""Small helpers every layer may use: bounded caches, lazy attributes, read-only
arrays, settings checks, the record of the library's own code, and `typing.io`."""
