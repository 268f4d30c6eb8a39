"""Dicts grown in place within one command's fold, and never a dict it did not make."""

import pickle

from hypothesis import given
from hypothesis import strategies as st

from server.rules.grown import Layered, grow, one_command


def test_outside_a_fold_every_change_copies() -> None:
    base = {"p1": 1}
    first = grow(base, {"p2": 2})
    second = grow(first, {"p3": 3})
    assert base == {"p1": 1} and first == {"p1": 1, "p2": 2}
    assert second == {"p1": 1, "p2": 2, "p3": 3} and second is not first


def test_within_a_fold_a_dict_it_made_grows_in_place() -> None:
    base = {"p1": 1}
    with one_command():
        first = grow(base, {"p2": 2})
        second = grow(first, {"p3": 3})
        with one_command():  # a fold inside a fold is the same fold
            third = grow(second, {"p4": 4})
    assert base == {"p1": 1}, "the state before the command is never changed"
    assert third is second is first and third == {"p1": 1, "p2": 2, "p3": 3, "p4": 4}
    after = grow(third, {"p5": 5})  # the fold is over: what it made is kept as it was
    assert after is not third and len(third) == 4


@given(
    st.lists(
        st.tuples(st.booleans(), st.dictionaries(st.sampled_from("abcdefghij"), st.integers())),
        max_size=60,
    ),
    st.dictionaries(st.sampled_from("abcdefghijklmnop"), st.integers(), max_size=30),
)
def test_a_layered_dict_is_the_dict_grown_alike(
    steps: list[tuple[bool, dict[str, int]]], start: dict[str, int]
) -> None:
    """Grown in or out of one command's fold, a Layered holds what a dict grown the same way
    holds, iterates in its order, and never changes a version made before."""
    plain, layered = dict(start), Layered(dict(start))
    versions: list[tuple[Layered[str, int], dict[str, int]]] = []
    for folded, changes in steps:
        if folded:
            with one_command():
                for key, value in changes.items():
                    layered = layered.grown({key: value})
        else:
            layered = layered.grown(changes)
        plain = {**plain, **changes}
        versions.append((layered, dict(plain)))
        assert list(layered.items()) == list(plain.items()) and len(layered) == len(plain)
        assert all(layered.get(k) == v and k in layered for k, v in plain.items())
        assert layered.get("zz") is None and "zz" not in layered
    for version, held in versions[:-1]:
        assert dict(version.items()) == held
    assert pickle.loads(pickle.dumps(layered)) == layered == plain
