"""Ranks: the five Maya gods of the rank papers, and which rank takes which."""

from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

LOWEST, HIGHEST = 1, 5
# A team of five holds each rank once; a team of six has a second Gukumatz.
VALID_SETS = (Counter([1, 2, 3, 4, 5]), Counter([1, 2, 2, 3, 4, 5]))


class RankSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    rank: int = Field(ge=LOWEST, le=HIGHEST)
    name: str = Field(min_length=1, max_length=40, pattern=r"\S")
    lives: int = Field(default=3, ge=0, le=99)


DEFAULT_RANKS = (
    RankSpec(rank=1, name="Bulac Chabtan"),
    RankSpec(rank=2, name="Gukumatz"),
    RankSpec(rank=3, name="Kinich Ahau"),
    RankSpec(rank=4, name="Hum Cimil"),
    RankSpec(rank=5, name="Ix Chel"),
)


def takes(a: int, b: int) -> bool:
    """Rank `a` takes rank `b`'s paper: the higher does, except that 1 takes 5."""
    if {a, b} == {LOWEST, HIGHEST}:
        return a == LOWEST
    return a > b


def winner(ranks: dict[str, int]) -> str | None:
    """Of two duellists, the one whose rank takes the other's; None on equal ranks."""
    (a, rank_a), (b, rank_b) = ranks.items()
    if takes(rank_a, rank_b):
        return a
    if takes(rank_b, rank_a):
        return b
    return None


def reason(a: int, b: int) -> str:
    """Why a duel of ranks `a` and `b` went as it did: "equal" (the papers swap), "one_takes_five"
    or "higher"."""
    if a == b:
        return "equal"
    return "one_takes_five" if {a, b} == {LOWEST, HIGHEST} else "higher"


def valid_set(ranks: list[int]) -> bool:
    return Counter(ranks) in VALID_SETS
