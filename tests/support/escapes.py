"""What must never reach a terminal, and a finder of it in output."""

from __future__ import annotations

# What must never reach a terminal: ESC, BEL, any C1 control (as UTF-8), bidi overrides.
FORBIDDEN = (
    [b"\x1b", b"\x07"]
    + [("%c" % c).encode() for c in range(0x80, 0xA0)]
    + [ch.encode() for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]
)


def inert(data: bytes | str) -> list[bytes]:
    raw = data.encode() if isinstance(data, str) else data
    return [f for f in FORBIDDEN if f in raw]
