"""The API reference's Griffe extension (docs/hooks/instance_attributes.py) and the
attribute docstrings it relies on."""

import sys
from pathlib import Path
from typing import Iterator

import griffe
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from instance_attributes import InstanceAttributeValues  # noqa: E402


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    extensions = griffe.load_extensions(InstanceAttributeValues)
    loaded = griffe.load(
        "mathy_envs", search_paths=[str(ROOT)], extensions=extensions, resolve_aliases=False
    )
    assert isinstance(loaded, griffe.Module)
    return loaded


def attributes(obj: griffe.Object) -> Iterator[griffe.Attribute]:
    for member in obj.members.values():
        if member.is_alias:
            continue
        if isinstance(member, griffe.Attribute):
            yield member
        elif isinstance(member, (griffe.Module, griffe.Class)):
            yield from attributes(member)


def test_instance_attributes_have_no_value_to_show(package: griffe.Module) -> None:
    instance_only = [
        a
        for a in attributes(package)
        if "instance-attribute" in a.labels and "class-attribute" not in a.labels
    ]
    assert instance_only, "no instance attributes found"
    assert [a.path for a in instance_only if a.value is not None] == []


def test_class_attributes_keep_their_values(package: griffe.Module) -> None:
    win = package["rewards.EnvRewards.WIN"]
    assert str(win.value) == "1.0"
    assert str(package["limits.MAX_NODES"].value) == "256"


@pytest.mark.parametrize(
    "path",
    [
        "env.MathyEnv.max_moves",
        "env.MathyEnv.rules",
        "env.MathyEnv.parser",
        "state.MathyEnvState.max_moves",
        "state.MathyAgentState.history",
        "gym.env.MathyGymEnv.env_problem",
        "gym.spaces.MaskedDiscrete.mask",
        "envs.poly_simplify.PolySimplify.ops",
    ],
)
def test_documented_instance_attributes_have_docstrings(
    package: griffe.Module, path: str
) -> None:
    attribute = package[path]
    assert attribute.docstring is not None and attribute.docstring.value.strip()
