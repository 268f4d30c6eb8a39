"""The card-duel commands and who may send them."""

from typing import ClassVar, Literal

from server.rules.card_duel.cards import CardSpec
from server.rules.core import ORGANIZER, PLAYER, Command, Id, Role


class Challenge(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER
    target: str = Id
    ranged: bool = False


class Pick(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER
    duel_id: str = Id
    card_id: str = Id


class LeaveDuel(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER
    duel_id: str = Id


class GrantCard(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    player_id: str = Id
    card: CardSpec


class GrantItem(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    player_id: str = Id
    item: Literal["crossbow"]


class Heal(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    player_id: str = Id


class Revive(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    player_id: str = Id


class CancelDuel(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    duel_id: str = Id


COMMANDS: dict[str, type[Command]] = {
    "challenge": Challenge,
    "pick": Pick,
    "leave_duel": LeaveDuel,
    "grant_card": GrantCard,
    "grant_item": GrantItem,
    "heal": Heal,
    "revive": Revive,
    "cancel_duel": CancelDuel,
}
