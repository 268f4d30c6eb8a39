// Which stamina-deck screen a token gets: the GM's table (and its QR invites) for the organizer,
// the phone screen for a player (their characters) and for a spectator (the public part).
import { deckGmScreen } from "./deck_gm.js";
import { deckNeedsAwake, deckPlayerScreen } from "./deck_player.js";
import { invitesScreen } from "./invites.js";

export { deckNeedsAwake };

export function deckScreen(app, game, page) {
  if (game.view.me?.role === "organizer") return page === "invites" ? invitesScreen(app, game) : deckGmScreen(app, game);
  return deckPlayerScreen(app, game);
}
