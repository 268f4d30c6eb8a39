"""Merge patches (RFC 7396) between any two JSON objects, shared parts and nulls included."""

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.game.patch import apply, bare, diff

KEYS = st.sampled_from(["a", "b", "c", "d"])
SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["x", "y"])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=10,
)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=4)


def sharing(old: dict[str, Any], new: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """`new`, with the value of each of `keys` that `old` has taken from `old` itself (the same
    object, as a view reuses a part that did not change)."""
    return {**new, **{k: old[k] for k in keys if k in old}}


@given(OBJECTS, OBJECTS, st.lists(KEYS, max_size=4))
def test_the_patch_turns_the_old_object_into_the_new(
    old: dict[str, Any], new: dict[str, Any], shared: list[str]
) -> None:
    new = sharing(old, new, shared)
    before, after = copy.deepcopy(old), copy.deepcopy(new)
    patch = diff(old, new)
    assert bare(apply(bare(old), patch)) == bare(new)  # a null and a missing key: the same
    assert (old, new) == (before, after)  # neither is changed
    assert (patch == {}) == (bare(old) == bare(new))


@given(OBJECTS)
def test_an_object_against_itself_or_a_copy_is_no_patch(value: dict[str, Any]) -> None:
    assert diff(value, value) == {}
    assert diff(value, copy.deepcopy(value)) == {}
