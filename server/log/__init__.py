"""A game's log as organizers keep it: export, import and verify."""
