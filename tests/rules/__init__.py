"""Tests of the rules: every rule of each ruleset, and properties over random games."""
