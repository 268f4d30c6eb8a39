// Which stamina-deck screen a token gets: the GM's table (and its QR invites) for the organizer,
// the phone screen for a player (their characters) and for a spectator (the public part).
import { deckNeedsAwake, deckPlayerScreen } from "./player.js";
import { consoleScreen } from "../../rulesets.js";

// Only an organizer downloads the console and the invite sheet.
const CONSOLE = () => import("./gm.js");

export { deckNeedsAwake as awake };

export function screen(app, game, page) {
  if (game.view.me?.role === "organizer") return consoleScreen(app, game, page, CONSOLE, "deckGmScreen");
  return deckPlayerScreen(app, game);
}
