// Which stamina-deck screen a token gets: the GM's table (and its QR invites) for the organizer,
// the phone screen for a player (their characters) and for a spectator (the public part).
import { deckGmScreen } from "./gm.js";
import { deckNeedsAwake, deckPlayerScreen } from "./player.js";
import { invitesScreen } from "../../views/invites.js";

export { deckNeedsAwake as awake };

export function screen(app, game, page) {
  if (game.view.me?.role === "organizer") return page === "invites" ? invitesScreen(app, game) : deckGmScreen(app, game);
  return deckPlayerScreen(app, game);
}
