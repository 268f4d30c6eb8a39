"""Each ruleset's case of tests/browser/test_widths.py, found by its module's name (the id with
`-` as `_`): `screens(phones, api)` sets up its games over HTTP and looks at each screen."""
