"""Bij se: an event-sourced referee for live-action field games."""
