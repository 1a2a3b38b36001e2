"""resolvers/phones.py, which the messaging domain reuses: normalisation, validation, BSUIDs."""
import pytest

from leadline.resolvers.errors import ApiError
from leadline.resolvers.phones import is_bsuid, normalize_phone, try_normalize_phone


@pytest.mark.parametrize("raw, code, expected", [
    ("+1 (415) 555-2671", None, "14155552671"),
    ("415.555.2671", "1", "14155552671"),
    ("14155552671", "+1", "14155552671"),
    ("07911 123456", "44", "447911123456"),
    ("0044 7911 123456", None, "447911123456"),
    ("98765-43210", "91", "919876543210"),
    ("+91 98765 43210", "44", "919876543210"),  # written internationally: the country code does not apply
])
def test_normalisation(raw, code, expected):
    assert normalize_phone(raw, code) == expected


# Numbers are accepted when possible for their country code (their length fits; reachability is the
# provider's to say), so '9876543210' read as international is a possible +98 number and not listed here.
@pytest.mark.parametrize("raw, code", [("12345", None), ("1234567", None), ("phone", None), ("", "91"),
                                       ("1234", "91")])
def test_invalid_numbers(raw, code):
    assert try_normalize_phone(raw, code) is None
    with pytest.raises(ApiError) as refused:
        normalize_phone(raw, code)
    assert refused.value.code == "INVALID_PHONE_NUMBER" and refused.value.status == 400


def test_bsuid_format():
    assert is_bsuid("US.abc123") and is_bsuid("IN." + "a" * 128)
    assert not any(is_bsuid(v) for v in ("us.abc", "XX.abc", "US.", "US.a-b", "USA.abc", "IN." + "a" * 129, None))


def test_a_number_the_metadata_calls_invalid_but_possible_is_accepted():
    """The provider's wa_id 972987654321 (a fixture's sender) is authoritative: phonenumbers' metadata
    calls it invalid, its length is possible for +972."""
    assert normalize_phone("972987654321") == "972987654321"
    assert normalize_phone("+972 98 765 4321") == "972987654321"
