"""Reading a long log at once."""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Reading a long log makes millions of objects and no garbage cycles: the cycle collector
    would only rescan them again and again (it costs a third of a load)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
