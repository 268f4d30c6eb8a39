"""Dicts grown in place within one command's fold, and never a dict it did not make; tuples
grown at their end in one shared list, and never a version made before."""

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.grown import Appended, Layered, grow, one_command


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


@given(st.lists(st.tuples(st.integers(min_value=0), st.integers()), max_size=80))
def test_an_appended_tuple_is_the_tuple_grown_alike(steps: list[tuple[int, int]]) -> None:
    """Each step adds an item to any version made before (the newest most often, as a state's
    fold does; an older one as a trial or a command decided again does): every version holds
    what a tuple grown the same way holds, whatever is added to the others after it."""
    versions: list[tuple[Appended[int], tuple[int, ...]]] = [(Appended(), ())]
    for pick, item in steps:
        # Half the steps grow the newest version, the others any version at all.
        appended, plain = versions[-1] if pick % 2 else versions[pick // 2 % len(versions)]
        versions.append((appended.added(item), (*plain, item)))
    for appended, plain in versions:
        assert tuple(appended) == plain and len(appended) == len(plain)
        assert tuple(reversed(appended)) == plain[::-1]
        assert appended[:] == list(plain) and all(
            appended[i] == plain[i] and appended[-i - 1] == plain[-i - 1] for i in range(len(plain))
        )
        with pytest.raises(IndexError):
            appended[len(plain)]  # past its end, whatever the shared list holds beyond it
        assert appended == Appended(plain) and hash(appended) == hash(Appended(plain))
        again = pickle.loads(pickle.dumps(appended))
        assert again == appended and again.items == list(plain), "only what it sees is kept"


def test_the_newest_appended_tuple_grows_in_place_and_an_older_one_copies() -> None:
    empty: Appended[str] = Appended()
    one = empty.added("a")
    two = one.added("b")
    assert two.items is one.items, "the newest version's list grows in place"
    other = one.added("c")  # `one` is no longer the newest: its list holds "b" beyond it
    assert other.items is not one.items and tuple(other) == ("a", "c") and tuple(two) == ("a", "b")
    assert empty.added("d").items is not empty.added("e").items, "an empty list is never shared"
