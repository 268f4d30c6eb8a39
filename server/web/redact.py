"""No token in the server's log: uvicorn logs every request's path with its query string (the
access log, the WebSocket's "accepted" line), and at debug and trace level the handshake's
headers, the ASGI scope and the first characters of every frame. Old clients send a token in
the URL; new ones in a subprotocol or a hello message. Each form is blanked out of every
record of uvicorn's loggers before it is written, however it is spelled: a URL's name may be
percent-encoded (`%74oken`), a JSON key escaped (`"\\u0074oken"`), and a frame's text is logged
as Python shows a string, its backslashes doubled and a line feed as `\\n`."""

import logging
import re
from urllib.parse import unquote_plus

HIDDEN = "[redacted]"
PAIR = re.compile(r"""(?:^|(?<=[?&'"\s]))([\w%.~+-]+)=([^&\s'"#]*)""")
SUBPROTOCOL = re.compile(r"(bijse\.token\.)[\w-]+")
# A key of letters and \uXXXX escapes (with one backslash, or two as a logged frame shows it),
# then a string value: a hello's `"token": "…"` however its JSON spells the key.
ESCAPE = re.compile(r"\\{1,2}u([0-9A-Fa-f]{4})")
NAME = r"(?:[A-Za-z]|\\{1,2}u[0-9A-Fa-f]{4})+"
SPACE = r"(?:\s|\\{1,2}[nrt])*"  # JSON's white space, as is or as a logged frame shows it
KEY = re.compile(rf"""["']({NAME})["']({SPACE}:{SPACE}\\?["'])[^"']*""")
LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def spelled(key: str) -> str:
    return ESCAPE.sub(lambda found: chr(int(found[1], 16)), key)


def redact(text: str) -> str:
    def pair(found: re.Match[str]) -> str:
        if unquote_plus(found[1]).strip().lower() == "token":
            return f"{found[1]}={HIDDEN}"
        return found[0]

    def key(found: re.Match[str]) -> str:
        if spelled(found[1]).lower() == "token":
            return found[0][: found.end(2) - found.start()] + HIDDEN
        return found[0]

    if "oken" not in text and "%" not in text and "\\u" not in text:  # the usual case
        return text
    text = PAIR.sub(pair, text)
    text = SUBPROTOCOL.sub(lambda found: found[1] + HIDDEN, text)
    return KEY.sub(key, text)


class Redact(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and all(isinstance(a, str | int | float) for a in args):
            # uvicorn's access formatter reads the arguments one by one: keep them apart
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
            record.msg = redact(str(record.msg))
        else:  # a scope, headers, bytes: the whole line, as it would be written
            record.msg, record.args = redact(record.getMessage()), None
        return True


def install() -> None:
    """On uvicorn's loggers, once (a filter stays through uvicorn's own logging setup)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, Redact) for f in logger.filters):
            logger.addFilter(Redact())
