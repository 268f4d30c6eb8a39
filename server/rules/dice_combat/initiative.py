"""Initiative: who acts first. Highest total first; ties: higher agi; still tied: reroll."""

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from server.rules.core import Json


@dataclass(frozen=True, slots=True)
class Initiative:
    die: int
    agi: int  # as it was at the roll: a later correction of agi does not reorder the round
    bonus: int
    total: int  # 1d6 + agi + bonus, or what the GM corrected it to
    since: int  # the round it was rolled in
    tiebreak: tuple[int, ...] = ()  # the d6 rerolled, in turn, while tied with others

    def key(self) -> tuple[int, int, int, tuple[int, ...]]:
        # With `initiative_once` a latecomer rolls later; on a tie it goes after those already
        # in the order, whose results stay valid until the end of the fight.
        return (self.total, self.agi, -self.since, self.tiebreak)

    def dump(self) -> Json:
        return {
            "die": self.die,
            "agi": self.agi,
            "bonus": self.bonus,
            "total": self.total,
            "since": self.since,
            "tiebreak": list(self.tiebreak),
        }


def settle(
    entries: Mapping[str, Initiative], d6: Callable[[], int]
) -> tuple[dict[str, Initiative], list[str]]:
    """Reroll a d6 for everybody still tied with someone, until nobody is; and the order.

    All of a tied group reroll together, so tiebreaks of one group share their length and the
    keys end up all different: the order is strict.
    """
    settled = dict(entries)
    while True:
        groups: dict[tuple[int, int, int, tuple[int, ...]], list[str]] = defaultdict(list)
        for combatant_id in sorted(settled):
            groups[settled[combatant_id].key()].append(combatant_id)
        tied = [ids for ids in groups.values() if len(ids) > 1]
        if not tied:
            order = sorted(settled, key=lambda c: settled[c].key(), reverse=True)
            return settled, order
        for ids in tied:
            for combatant_id in ids:
                entry = settled[combatant_id]
                settled[combatant_id] = replace(entry, tiebreak=(*entry.tiebreak, d6()))
