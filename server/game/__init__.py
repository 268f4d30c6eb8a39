"""The games in memory: deciding and writing commands, and showing each viewer its part."""
