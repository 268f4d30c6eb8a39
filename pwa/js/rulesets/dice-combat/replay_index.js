// dice-combat's part of the replay's index (replay/indexer.js): fights, attacks, checks, faints
// and deaths; the rows are the combatants. DOM-free: the replay's Web Worker imports it.

export const jumps = {
  fight: ["fight_started"], attack: ["attack_resolved"], check: ["check_rolled"], stun: ["combatant_fainted"], death: ["combatant_died"],
};
export const columns = ["attacks", "hits", "damage", "fainted", "died"];
export const rowsAreFighters = true;

export function index(indexer, { type, data = {} }) {
  switch (type) {
    case "combatant_added":
      indexer.fighter(data.combatant_id, data.name, data.side);
      break;
    case "attack_resolved":
      indexer.bump(data.attacker_id, "attacks");
      if (data.hit) {
        indexer.bump(data.attacker_id, "hits");
        indexer.bump(data.attacker_id, "damage", Math.max(0, data.damage ?? 0));
      }
      break;
    case "combatant_fainted":
      indexer.bump(data.combatant_id, "fainted");
      break;
    case "combatant_died":
      indexer.bump(data.combatant_id, "died");
      break;
    default:
      break;
  }
}
