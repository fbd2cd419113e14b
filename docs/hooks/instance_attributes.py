"""Griffe extension for the API reference: no initial values on instance attributes.

An attribute assigned in a method (`self.max_moves = max_moves` in `__init__`) has
no value a reader can use: its "value" is the right-hand side of the assignment,
which would render as `max_moves: int = max_moves`. This extension drops that
value, so such attributes show their name, type and docstring. Attributes declared
in a class body (constants, dataclass fields, enum members) keep their values.
"""

from __future__ import annotations

from typing import Any

import griffe


class InstanceAttributeValues(griffe.Extension):
    """Forget the assigned value of attributes that exist only on instances."""

    def on_attribute(self, *, attr: griffe.Attribute, **kwargs: Any) -> None:
        if "instance-attribute" in attr.labels and "class-attribute" not in attr.labels:
            attr.value = None
