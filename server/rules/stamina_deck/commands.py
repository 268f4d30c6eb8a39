"""The stamina-deck commands and who may send them.

Commands for a character are sent by the GM (the organizer) or by the player linked to it;
`decide` checks the link, the roles here only keep spectators and leaders out.
"""

from typing import Annotated, ClassVar

from pydantic import Field

from server.rules.core import ORGANIZER, ORGANIZER_OR_PLAYER, Command, Id, Role
from server.rules.roster import Name
from server.rules.stamina_deck.character import Weapon

Square = Field(ge=0, le=59)
CHARACTER = ORGANIZER_OR_PLAYER  # the GM, or the player linked to the character


class AddCharacter(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    name: str = Name
    side: str = Field(min_length=1, max_length=40)
    player_id: str | None = Field(default=None, min_length=1, max_length=64)
    lives: int = Field(ge=1, le=99)
    agi: int = Field(default=0, ge=-5, le=10)
    shooting: int = Field(default=0, ge=0, le=5)
    melee: int = Field(default=0, ge=0, le=5)
    unarmed: int = Field(default=0, ge=0, le=5)
    weapon: Weapon | None = None
    armour: int = Field(default=0, ge=0, le=30)
    x: int = Square
    y: int = Square
    loaded: bool = True


class LinkCharacter(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    character_id: str = Id
    player_id: str | None = Id


class PlaceCharacter(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    character_id: str = Id
    x: int = Square
    y: int = Square


class SetCover(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    character_id: str = Id
    cover: int = Field(ge=0, le=30)


class Engage(Command):
    """Two characters in contact start a bout; the rules pick who attacks (melee.opener)."""

    roles: ClassVar[frozenset[Role]] = ORGANIZER
    fighters: list[Annotated[str, Id]] = Field(min_length=2, max_length=2)  # in either order


class Disengage(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    bout_id: str = Id


class StartRound(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER


class ChooseInitiative(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    card_id: str = Id


class EndTurn(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id


class Move(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    x: int = Square
    y: int = Square
    card_id: str | None = Field(default=None, min_length=1, max_length=64)


class Shoot(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    target_id: str = Id
    card_id: str = Id


class AimedShot(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    target_id: str = Id
    card_ids: list[str] = Field(min_length=2, max_length=2)


class Reload(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    card_id: str = Id


class PutAid(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    card_id: str = Id
    name: str = Name


class UseAid(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    aid_id: str = Id


class Defend(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    card_id: str | None = Field(default=None, min_length=1, max_length=64)  # None: the deck top


class GiveCards(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    card_ids: list[str] = Field(max_length=52)


class Play(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id
    bout_id: str = Id
    card_id: str | None = Field(default=None, min_length=1, max_length=64)  # None: the deck top


class RenewDeck(Command):
    roles: ClassVar[frozenset[Role]] = CHARACTER
    character_id: str = Id


COMMANDS: dict[str, type[Command]] = {
    "add_character": AddCharacter,
    "link_character": LinkCharacter,
    "place_character": PlaceCharacter,
    "set_cover": SetCover,
    "engage": Engage,
    "disengage": Disengage,
    "start_round": StartRound,
    "choose_initiative": ChooseInitiative,
    "end_turn": EndTurn,
    "move": Move,
    "shoot": Shoot,
    "aimed_shot": AimedShot,
    "reload": Reload,
    "put_aid": PutAid,
    "use_aid": UseAid,
    "defend": Defend,
    "give_cards": GiveCards,
    "play": Play,
    "renew_deck": RenewDeck,
}
