"""How a write fails, as the store's callers tell it apart."""


class Conflict(Exception):
    """Another writer got there first: a seq or a command id of the batch is taken."""


class Unavailable(Exception):
    """The database could not be written (the web layer answers 503 `unavailable`: retry);
    `detail` is the cause, for the operator."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Unstorable(Unavailable):
    """A value the database cannot hold (on PostgreSQL a data exception, such as U+0000 in text;
    a number out of range): it belongs to one append of the batch, and retrying cannot help
    (the web layer answers 422 `invalid`)."""
