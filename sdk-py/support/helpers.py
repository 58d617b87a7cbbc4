"""Small helpers the test files share."""

import base64
import json
import secrets
import time

PASSWORD = "a-good-password"


def unique_email(tag: str = "user") -> str:
    """A unique e-mail address for one test."""
    return f"{tag}-{int(time.time() * 1000):x}-{secrets.token_hex(3)}@example.com"


def claims(token: str) -> dict:
    """The payload of a JWT, unverified (what the client itself reads)."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
