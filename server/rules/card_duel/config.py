"""A card-duel game's settings, as its organizer gives them at its creation."""

from pydantic import BaseModel, ConfigDict, Field

from server.rules.card_duel.cards import STARTING_CARDS, CardSpec


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    stun_s: int = Field(default=300, ge=0, le=86_400)
    escape_immunity_s: int = Field(default=10, ge=0, le=3_600)
    pick_timeout_s: int | None = Field(default=None, ge=1, le=86_400)
    # How long a duellist waits for an opponent who does not pick before they may leave the duel.
    leave_after_s: int = Field(default=60, ge=0, le=3_600)
    starting_cards: list[CardSpec] = Field(
        default_factory=lambda: list(STARTING_CARDS), min_length=1, max_length=20
    )
