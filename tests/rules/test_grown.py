"""Dicts grown in place within one command's fold, and never a dict it did not make."""

from server.rules.grown import grow, one_command


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
