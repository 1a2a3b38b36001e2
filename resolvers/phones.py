"""Phone-number and BSUID handling shared by every domain (spec: Conventions 5 and 7)."""
from __future__ import annotations

import re

import phonenumbers

from leadline.resolvers.errors import ApiError

_STRIP = re.compile(r"[\s\-()+.]")
_COUNTRY_CODE = re.compile(r"^\d{1,4}$")
_BSUID = re.compile(r"^([A-Z]{2})\.[A-Za-z0-9]{1,128}$")


def digits_only(raw: str) -> str:
    """Strip `+`, spaces, dashes, dots and parentheses: '+1 (555) 010-2030' -> '15550102030'."""
    return _STRIP.sub("", raw or "")


def country_code_digits(raw: str | int | None) -> str | None:
    """'+91', '91', 91 -> '91'; None or blank -> None; anything else is INVALID_PHONE_NUMBER."""
    if raw is None:
        return None
    code = digits_only(str(raw))
    if not code:
        return None
    if not _COUNTRY_CODE.match(code) or not phonenumbers.region_codes_for_country_code(int(code)):
        raise ApiError("INVALID_PHONE_NUMBER", f"'{str(raw)[:100]}' is not a known country calling code.")
    return code


def _valid(number: phonenumbers.PhoneNumber | None) -> str | None:
    """Accepted when `phonenumbers` deems it *possible* for its country code (its length fits): the
    library's numbering-plan metadata lags behind real plans (the provider's wa_id 972987654321 is
    "invalid" to it), and whether a number is reachable is the provider's to say."""
    if number is None or not phonenumbers.is_possible_number(number):
        return None
    return f"{number.country_code}{number.national_number}"


def _parse(text: str, region: str | None) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None


def try_normalize_phone(raw: str | None, country_code: str | int | None = None) -> str | None:
    """Full international digits without `+`, or None when the number is not a possible one.

    A number written with `+` (or `00`) is international. Otherwise, with a country code, a number
    that already starts with that code and is valid as such is kept; any other is read as a local
    number of that country (so a trunk `0` is dropped: GB '07911 123456' -> '447911123456').
    Without a country code the digits are read as international.
    """
    if not raw or not str(raw).strip():
        return None
    text = str(raw).strip()
    international = text.startswith("+") or text.startswith("00")
    digits = digits_only(text)
    if not digits.isdigit():
        return None
    if text.startswith("00"):
        digits = digits[2:]
    cc = country_code_digits(country_code)
    if international or cc is None:
        return _valid(_parse("+" + digits, None))
    if digits.startswith(cc) and (as_international := _valid(_parse("+" + digits, None))):
        return as_international
    region = phonenumbers.region_code_for_country_code(int(cc))
    local = _parse(digits, region)
    # Non-geographic codes (e.g. 800) have no region; prepend the code instead.
    return _valid(local) if region != "ZZ" else _valid(_parse("+" + cc + digits, None))


def normalize_phone(raw: str | None, country_code: str | int | None = None, *, path: str = "phone") -> str:
    """`try_normalize_phone`, refusing an invalid number with INVALID_PHONE_NUMBER."""
    normalized = try_normalize_phone(raw, country_code)
    if normalized is None:
        raise ApiError("INVALID_PHONE_NUMBER", f"'{str(raw)[:100]}' is not a valid phone number"
                       + (f" for country code {str(country_code)[:100]}." if country_code else
                          "; use full international digits (country code first) or send countryCode."),
                       details=[{"path": path, "code": "INVALID_PHONE_NUMBER", "message": "not a valid phone number"}])
    return normalized


def is_bsuid(value: str | None) -> bool:
    """A business-scoped user id: ISO 3166 alpha-2 country, a dot, 1-128 alphanumerics."""
    match = _BSUID.match(value or "")
    return bool(match) and match.group(1) in phonenumbers.SUPPORTED_REGIONS
