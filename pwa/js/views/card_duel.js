// card-duel: which screen a member gets. The organizer's console (and its QR invites), a
// fighter's phone; a spectator, or a member who does not fight, watches.
import { invitesScreen } from "./invites.js";
import { organizerScreen } from "./organizer.js";
import { playerNeedsAwake, playerScreen } from "./player.js";
import { spectatorScreen } from "./spectator.js";

export function cardScreen(app, game, page) {
  const me = game.view.me;
  if (me?.role === "organizer") return page === "invites" ? invitesScreen(app, game) : organizerScreen(app, game);
  if (!Array.isArray(me?.cards)) return spectatorScreen(app, game);
  return playerScreen(app, game);
}

// The organizer's console does not keep the screen on; a fighter's phone does in a duel or a stun.
export function cardNeedsAwake(view) {
  return view.me?.role !== "organizer" && playerNeedsAwake(view);
}
