"""The card-duel commands and who may send them."""

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from server.rules.card_duel.cards import CardSpec
from server.rules.core import ORGANIZER, PLAYER, Command, Id, Role


class Challenge(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER
    target: str = Id
    ranged: bool = False
    # The challenger's pick of the first round, sent with the challenge (as an offline duel's
    # QR carries it): one round trip less before the cards are revealed.
    card_id: str | None = Field(default=None, min_length=1, max_length=64)


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


Text = Annotated[str, Field(min_length=1, max_length=600)]  # one signed QR text


class RegisterKey(Command):
    """The phone's public key for offline duels: base64url of the uncompressed P-256 point."""

    roles: ClassVar[frozenset[Role]] = PLAYER
    public_key: str = Field(min_length=87, max_length=87, pattern=r"^[A-Za-z0-9_-]+$")


class SettleDispute(Command):
    """The organizer's ruling on a disputed offline duel (see DisputeSettled)."""

    roles: ClassVar[frozenset[Role]] = ORGANIZER
    duel_id: str = Id
    ruling: Literal["record", "log"]


class OfflineDuel(Command):
    """A duel two phones settled by QR with no network: the signed texts, in order."""

    roles: ClassVar[frozenset[Role]] = PLAYER
    record: list[Text] = Field(min_length=2, max_length=30)


COMMANDS: dict[str, type[Command]] = {
    "challenge": Challenge,
    "pick": Pick,
    "leave_duel": LeaveDuel,
    "grant_card": GrantCard,
    "grant_item": GrantItem,
    "heal": Heal,
    "revive": Revive,
    "cancel_duel": CancelDuel,
    "register_key": RegisterKey,
    "offline_duel": OfflineDuel,
    "settle_dispute": SettleDispute,
}
