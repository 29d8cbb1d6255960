"""Network names/HRPs and chain addresses ``<chainAlias>-<hrp>1<bech32 data>`` (utils/formatting/address)."""

from simnode.formats.bech32 import bech32_decode, bech32_encode
from simnode.formats.errors import FormatError
from simnode.formats.ids import SHORT_ID_LEN, short_id_from_str

ADDRESS_SEPARATOR = "-"

MAINNET_ID = 1
FUJI_ID = 5
UNIT_TEST_ID = 10
LOCAL_ID = 12345

_NETWORK_NAMES = {1: "mainnet", 2: "cascade", 3: "denali", 4: "everest", 5: "fuji", 10: "testing", 12345: "local"}
_NETWORK_HRPS = {1: "avax", 2: "cascade", 3: "denali", 4: "everest", 5: "fuji", 10: "testing", 12345: "local"}
_NAME_TO_NETWORK_ID = {name: network_id for network_id, name in _NETWORK_NAMES.items()} | {"testnet": FUJI_ID}
FALLBACK_HRP = "custom"
_NETWORK_PREFIX = "network-"


def hrp_for_network(network_id: int) -> str:
    return _NETWORK_HRPS.get(network_id, FALLBACK_HRP)


def network_name(network_id: int) -> str:
    return _NETWORK_NAMES.get(network_id, f"{_NETWORK_PREFIX}{network_id}")


def network_id_from_name(name: str) -> int:
    """AvalancheGo's constants.NetworkID: a known name, a decimal uint32, or ``network-N``."""
    lowered = name.lower()
    if lowered in _NAME_TO_NETWORK_ID:
        return _NAME_TO_NETWORK_ID[lowered]
    digits = lowered.removeprefix(_NETWORK_PREFIX)
    if digits.isascii() and digits.isdigit() and int(digits) < 1 << 32:
        return int(digits)
    raise FormatError(f'failed to parse network name: "{lowered}"')


def format_address(chain_alias: str, hrp: str, payload: bytes) -> str:
    return f"{chain_alias}{ADDRESS_SEPARATOR}{bech32_encode(hrp, bytes(payload))}"


def _split_address(text: str) -> tuple[str, str, bytes]:
    if not isinstance(text, str):
        raise FormatError(f"address must be a string, got {type(text).__name__}")
    alias, separator, rest = text.partition(ADDRESS_SEPARATOR)
    if not separator:
        raise FormatError("no separator found in address")
    hrp, payload = bech32_decode(rest)
    return alias, hrp, payload


def _check_payload(payload: bytes) -> bytes:
    if len(payload) != SHORT_ID_LEN:
        raise FormatError(f"invalid hash length: expected {SHORT_ID_LEN} bytes but got {len(payload)}")
    return payload


def parse_address(text: str) -> tuple[str, str, bytes]:
    """``X-local1…`` → (chain alias, hrp, 20-byte payload)."""
    alias, hrp, payload = _split_address(text)
    return alias, hrp, _check_payload(payload)


def parse_address_arg_with_alias(
    text: str, *, expected_hrp: str, expected_chain_aliases: set[str] | None = None
) -> tuple[str | None, bytes]:
    """An API address argument: a bare cb58 ShortID (alias None) or a bech32 chain address.

    Checks run in AvalancheGo's order (ParseServiceAddress): ShortID first, then separator and bech32,
    chain alias, HRP, payload length. Returns the alias so a service can map it to a chain ID and
    produce its own "mismatched chainIDs" text with the real IDs.
    """
    try:
        return None, short_id_from_str(text)
    except FormatError:
        pass  # not a bare ShortID: AvalancheGo then parses it as a chain address
    alias, hrp, payload = _split_address(text)
    if expected_chain_aliases is not None and alias not in expected_chain_aliases:
        expected = ", ".join(sorted(expected_chain_aliases))
        raise FormatError(f'mismatched chainIDs: expected one of "{expected}" but got "{alias}"')
    if hrp != expected_hrp:
        raise FormatError(f'expected hrp "{expected_hrp}" but got "{hrp}"')
    return alias, _check_payload(payload)


def parse_address_arg(text: str, *, expected_chain_aliases: set[str] | None, expected_hrp: str) -> bytes:
    """The 20-byte address of an API address argument (see parse_address_arg_with_alias)."""
    return parse_address_arg_with_alias(
        text, expected_hrp=expected_hrp, expected_chain_aliases=expected_chain_aliases
    )[1]
