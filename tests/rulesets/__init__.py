"""Rulesets that live outside the server's tree, loaded as any other is (BIJSE_RULESETS)."""
