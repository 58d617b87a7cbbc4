"""Two-factor authentication through supabase-py's MFA API: enroll a TOTP
factor, challenge and verify it with the test's own RFC 6238 code, and read
the assurance level from the token."""

import pytest
from supabase_auth.errors import AuthApiError

from support.totp import fresh_totp, totp
from support.helpers import claims


def test_totp_vectors_of_rfc_6238():
    # The RFC's SHA-1 seed, base32-encoded; its 8-digit codes' last 6 digits.
    secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert totp(secret, 59) == "287082"
    assert totp(secret, 1111111109) == "081804"
    assert totp(secret, 2000000000) == "279037"


def test_enroll_challenge_verify_raises_the_session_to_aal2(signed_in):
    user = signed_in("mfa")
    db = user.client
    mfa = db.auth.mfa

    before = mfa.get_authenticator_assurance_level()
    assert before.current_level == "aal1"
    assert before.next_level == "aal1"
    assert db.table("py_mfa_secrets").select("body").execute().data == []

    enrolled = mfa.enroll({"factor_type": "totp", "friendly_name": "py phone", "issuer": "plinth-py"})
    assert enrolled.type == "totp"
    assert enrolled.friendly_name == "py phone"
    assert enrolled.totp.secret
    assert enrolled.totp.uri.startswith("otpauth://totp/")
    assert "issuer=plinth-py" in enrolled.totp.uri
    assert enrolled.totp.qr_code.startswith("data:image/svg+xml;utf-8,")

    challenge = mfa.challenge({"factor_id": enrolled.id})
    assert challenge.id
    assert challenge.expires_at > 0

    with pytest.raises(AuthApiError) as wrong:
        mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": "000000" if totp(enrolled.totp.secret) != "000000" else "111111"})
    assert wrong.value.code == "mfa_verification_failed"

    challenge = mfa.challenge({"factor_id": enrolled.id})
    verified = mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": fresh_totp(enrolled.totp.secret)})
    assert verified.user.id == user.id
    token = claims(verified.access_token)
    assert token["aal"] == "aal2"
    assert {entry["method"] for entry in token["amr"]} >= {"password", "totp"}

    # The client keeps the new session: aal2 now, and RLS sees it.
    after = mfa.get_authenticator_assurance_level()
    assert after.current_level == "aal2"
    assert after.next_level == "aal2"
    assert [m.method for m in after.current_authentication_methods][0] == "totp"
    assert db.table("py_mfa_secrets").select("body").execute().data == [{"body": "behind the second factor"}]

    factors = mfa.list_factors()
    assert [(f.id, f.status) for f in factors.totp] == [(enrolled.id, "verified")]

    # A new password sign-in starts at aal1 and is told aal2 is next.
    db.auth.sign_out()
    db.auth.sign_in_with_password({"email": user.email, "password": user.password})
    again = mfa.get_authenticator_assurance_level()
    assert again.current_level == "aal1"
    assert again.next_level == "aal2"
    assert claims(db.auth.get_session().access_token)["aal"] == "aal1"
    assert db.table("py_mfa_secrets").select("body").execute().data == []

    # challenge_and_verify in one call. A code counts once: this one is the
    # next window's, which the server takes as one step of clock skew.
    stepped = mfa.challenge_and_verify({"factor_id": enrolled.id, "code": fresh_totp(enrolled.totp.secret, 1)})
    assert claims(stepped.access_token)["aal"] == "aal2"
    assert mfa.get_authenticator_assurance_level().current_level == "aal2"


def test_unenroll_from_an_aal2_session(signed_in):
    user = signed_in("mfa-off")
    mfa = user.client.auth.mfa
    enrolled = mfa.enroll({"factor_type": "totp", "friendly_name": "spare"})
    mfa.challenge_and_verify({"factor_id": enrolled.id, "code": fresh_totp(enrolled.totp.secret)})
    removed = mfa.unenroll({"factor_id": enrolled.id})
    assert removed.id == enrolled.id
    refreshed = user.client.auth.refresh_session()
    assert claims(refreshed.session.access_token)["aal"] == "aal1"
    assert mfa.list_factors().all == []
