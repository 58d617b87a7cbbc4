"""The tests' own authenticator app: RFC 6238 (SHA-1, 30 s, 6 digits) with
hmac and hashlib, independent of the server's implementation."""

import base64
import hashlib
import hmac
import struct
import time


def totp(secret: str, unix_seconds: float | None = None) -> str:
    """The code of the base32 `secret` at `unix_seconds` (now by default)."""
    now = time.time() if unix_seconds is None else unix_seconds
    text = secret.upper().rstrip("=")
    key = base64.b32decode(text + "=" * (-len(text) % 8))
    counter = struct.pack(">Q", int(now // 30))
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


def fresh_totp(secret: str, steps_ahead: int = 0) -> str:
    """The code `steps_ahead` windows from now (the server allows one step of
    clock skew), with at least 3 s left in the window so that it still
    counts when the server checks it."""
    if 30 - time.time() % 30 < 3:
        time.sleep(30 - time.time() % 30 + 0.1)
    return totp(secret, time.time() + 30 * steps_ahead)
