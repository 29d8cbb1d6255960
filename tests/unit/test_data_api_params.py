"""Parameter validation from the real documents, in class-validator's words; the route table."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from multidict import MultiDict

from simnode.api.data.errors import ApiError
from simnode.api.data.params import decimal, validate_body, validate_params
from simnode.api.data.spec import DATA, METRICS, RouteTable, document_operations, split_path

ROUTES = RouteTable(document_operations(DATA) + document_operations(METRICS))
CURRENCIES = "usd, eur, aud, cad, chf, clp, cny, czk, dkk, gbp, hkd, huf, jpy, nzd"


def params(path: str, method: str = "GET", special: dict | None = None) -> dict:
    raw_path, _, qs = path.partition("?")
    found = ROUTES.match(method, split_path(raw_path))
    assert found is not None, path
    op, path_params = found
    return validate_params(op.params, path_params, MultiDict(parse_qsl(qs, keep_blank_values=True)), special or {})


def messages(path: str, method: str = "GET", special: dict | None = None) -> list[str]:
    with pytest.raises(ApiError) as info:
        params(path, method, special)
    assert info.value.status == 400
    return info.value.message  # type: ignore[return-value]


BLOCKS = "/v1/chains/43112/blocks"


@pytest.mark.parametrize(("query", "expected"), [
    ("pageSize=0", ["pageSize must not be less than 1"]),
    ("pageSize=-3", ["pageSize must not be less than 1"]),
    ("pageSize=101", ["pageSize must not be greater than 100"]),
    ("pageSize=1.5", ["pageSize must be an integer number"]),
    ("pageSize=100.5", ["pageSize must not be greater than 100", "pageSize must be an integer number"]),
    ("pageSize=abc", ["pageSize must not be greater than 100", "pageSize must not be less than 1",
                      "pageSize must be an integer number"]),
    ("pageSize=", ["pageSize must not be greater than 100", "pageSize must not be less than 1",
                   "pageSize must be an integer number"]),
    ("pageSize=1&pageSize=2", ["pageSize must not be greater than 100", "pageSize must not be less than 1",
                               "pageSize must be an integer number"]),
])
def test_page_size_messages(query: str, expected: list[str]) -> None:
    assert messages(f"{BLOCKS}?{query}") == expected


def test_page_size_values_and_default() -> None:
    assert params(BLOCKS) == {"chainId": "43112", "pageSize": 10}
    assert params(f"{BLOCKS}?pageSize=100&pageToken=abc&unknown=1") == {
        "chainId": "43112", "pageSize": 100, "pageToken": "abc"}
    assert params(f"{BLOCKS}?pageSize=1e1")["pageSize"] == 10
    assert params(f"{BLOCKS}?pageSize=2.0")["pageSize"] == 2
    assert params("/v1/networks/fuji/subnets?pageSize=10000")["pageSize"] == 10000
    assert messages("/v1/networks/fuji/subnets?pageSize=10001") == ["pageSize must not be greater than 10000"]
    assert messages("/v2/chains/43112/metrics/txCount?pageSize=2161") == ["pageSize must not be greater than 2160"]


def test_enums_booleans_numbers_and_lists() -> None:
    assert messages("/v1/chains/43112/transactions?status=ok") == [
        "status must be one of the following values: failed, success"]
    assert messages("/v1/chains/43112/addresses/0x00/balances:getNative?currency=btc") == [
        f"currency must be one of the following values: {CURRENCIES}"]
    utxos = "/v1/networks/fuji/blockchains/p-chain/utxos"
    assert messages(f"{utxos}?includeSpent=yes&sortOrder=up") == [
        "includeSpent must be a boolean value", "sortOrder must be one of the following values: asc, desc"]
    assert messages(f"{utxos}?includeSpent=True") == ["includeSpent must be a boolean value"]
    assert params(f"{utxos}?includeSpent=false&sortBy=amount")["includeSpent"] is False
    assert params(f"{utxos}?includeSpent=true")["includeSpent"] is True
    assert messages(f"{utxos}?minUtxoAmount=-1") == ["minUtxoAmount must not be less than 0"]
    assert messages(f"{utxos}?minUtxoAmount=lots") == [
        "minUtxoAmount must not be less than 0", "minUtxoAmount must be a number conforming to the specified constraints"]
    assert params(f"{utxos}?minUtxoAmount=2.5")["minUtxoAmount"] == 2.5
    # comma-separated lists stay one string; a string sent twice is joined back
    assert params(f"{utxos}?addresses=P-fuji1a%2CP-fuji1b")["addresses"] == "P-fuji1a,P-fuji1b"
    assert params(f"{utxos}?addresses=P-fuji1a&addresses=P-fuji1b")["addresses"] == "P-fuji1a,P-fuji1b"
    # the one array parameter: repeated keys
    txs = "/v1/networks/fuji/blockchains/p-chain/transactions"
    assert params(f"{txs}?txTypes=AddValidatorTx&txTypes=ImportTx")["txTypes"] == ["AddValidatorTx", "ImportTx"]
    assert messages(f"{txs}?txTypes=AddValidatorTx&txTypes=Nope")[0].startswith(
        "each value in txTypes must be one of the following values: AddValidatorTx, ")
    # big numbers stay exact; an integer the document leaves open is bounded by the safe integers
    assert params(f"{utxos}?minUtxoAmount=123456789012345678901")["minUtxoAmount"] == 123456789012345678901
    balances = "/v1/networks/fuji/blockchains/p-chain/balances?blockTimestamp="
    assert params(f"{balances}9007199254740991")["blockTimestamp"] == 2**53 - 1
    assert params(f"{balances}-9007199254740991")["blockTimestamp"] == -(2**53 - 1)


@pytest.mark.parametrize(("query", "expected"), [
    # open sides: JavaScript's safe integers, in @Max/@Min's words
    ("blockTimestamp=9007199254740992", ["blockTimestamp must not be greater than 9007199254740991"]),
    (f"blockTimestamp={2**256}", ["blockTimestamp must not be greater than 9007199254740991"]),
    (f"blockTimestamp=-{2**64}", ["blockTimestamp must not be less than -9007199254740991"]),
    ("blockTimestamp=1e20", ["blockTimestamp must not be greater than 9007199254740991"]),
    # past a double's range the number is Infinity: no integer, and on one side of every bound
    ("blockTimestamp=1e400", ["blockTimestamp must not be greater than 9007199254740991",
                              "blockTimestamp must be an integer number"]),
    ("blockTimestamp=" + "9" * 5000, ["blockTimestamp must not be greater than 9007199254740991",
                                      "blockTimestamp must be an integer number"]),
    ("blockTimestamp=-" + "9" * 400, ["blockTimestamp must not be less than -9007199254740991",
                                      "blockTimestamp must be an integer number"]),
    # not a number: the document's constraints only
    ("blockTimestamp=soon", ["blockTimestamp must be an integer number"]),
])
def test_integer_bounds_past_the_document(query: str, expected: list[str]) -> None:
    assert messages(f"/v1/networks/fuji/blockchains/p-chain/balances?{query}") == expected


def test_numbers_past_a_double_and_the_document_bounds() -> None:
    utxos = "/v1/networks/fuji/blockchains/p-chain/utxos"
    assert messages(f"{utxos}?minUtxoAmount=1e400") == [
        "minUtxoAmount must be a number conforming to the specified constraints"]
    assert messages(f"{utxos}?minUtxoAmount=-1e400") == [
        "minUtxoAmount must not be less than 0", "minUtxoAmount must be a number conforming to the specified constraints"]
    assert messages(f"{utxos}?pageSize={2**256}") == ["pageSize must not be greater than 100"]
    assert messages(f"{utxos}?pageSize={'9' * 5000}") == ["pageSize must not be greater than 100",
                                                           "pageSize must be an integer number"]
    metrics = "/v2/chains/43112/metrics/txCount"
    assert messages(f"{metrics}?startTimestamp={2**256}") == ["startTimestamp must not be greater than 9007199254740991"]
    assert messages(f"{metrics}?endTimestamp=-{2**256}") == ["endTimestamp must not be less than 0"]
    assert params(f"{metrics}?startTimestamp=9007199254740991")["startTimestamp"] == 2**53 - 1


def test_decimal_digits_within_a_bound() -> None:
    u64 = 2**64 - 1
    assert (decimal("0", 5), decimal("0005", 5), decimal(str(u64), u64), decimal("0" * 5000 + "7", u64)) == (0, 5, u64, 7)
    for text in ("6", "-1", "1.0", "1e0", "", " 1", "\u0661"):
        assert decimal(text, 5) is None, text
    for text in (str(2**64), "9" * 5000):
        assert decimal(text, u64) is None, text


def test_path_params_are_checked_before_the_query() -> None:
    assert messages("/v1/networks/local/subnets?pageSize=0") == [
        "network must be one of the following values: mainnet, fuji, testnet"]
    assert messages("/v1/networks/mainnet/subnets?pageSize=0") == ["pageSize must not be less than 1"]


def test_special_resolvers_replace_the_document_check() -> None:
    def blockchain(value: str, spec: object) -> str:
        if value != "local-p":
            raise ApiError(400, ["blockchainId is not local-p"])
        return "p-chain"
    special = {"blockchainId": blockchain}
    assert params("/v1/networks/fuji/blockchains/local-p/utxos", special=special)["blockchainId"] == "p-chain"
    assert messages("/v1/networks/fuji/blockchains/x/utxos?pageSize=0", special=special) == [
        "blockchainId is not local-p"]


def test_json_bodies_keep_their_types() -> None:
    op = ROUTES.match("POST", split_path("/v1/networks/fuji/blockchains/p-chain/utxos"))[0]
    assert validate_body(op.body, {"addresses": "P-fuji1a,P-fuji1b"}) == {"addresses": "P-fuji1a,P-fuji1b"}
    for bad in ({}, {"addresses": ["P-fuji1a"]}, [], "text", {"addresses": None}):
        with pytest.raises(ApiError) as info:
            validate_body(op.body, bad)
        assert info.value.message == ["addresses must be a string"]
    agg = ROUTES.match("POST", split_path("/v1/signatureAggregator/fuji/aggregateSignatures"))[0]
    assert validate_body(agg.body, {"message": "0x00", "quorumPercentage": 67}) == {
        "message": "0x00", "quorumPercentage": 67}
    with pytest.raises(ApiError) as info:
        validate_body(agg.body, {"message": 5, "quorumPercentage": "67", "pChainHeight": True})
    assert info.value.message == [
        "message must be a string",
        "quorumPercentage must be a number conforming to the specified constraints",
        "pChainHeight must be a number conforming to the specified constraints"]


def test_route_table_prefers_literals_and_ignores_case_and_trailing_slash() -> None:
    def template(method: str, path: str) -> str | None:
        found = ROUTES.match(method, split_path(path))
        return None if found is None else found[0].template

    assert template("GET", "/v2/chains/43114/btcb/bridged:getAddresses") == "/v2/chains/43114/btcb/bridged:getAddresses"
    assert template("GET", "/v2/chains/43112/metrics/txCount") == "/v2/chains/{chainId}/metrics/{metric}"
    assert template("GET", "/v1/webhooks:getSharedSecret") == "/v1/webhooks:getSharedSecret"
    assert template("GET", "/v1/webhooks/abc") == "/v1/webhooks/{id}"
    assert template("GET", "/V1/Chains/") == "/v1/chains"
    assert template("POST", "/v1/chains/43112/nfts/collections/0xab/tokens/7:reindex") == \
        "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex"
    assert template("POST", "/v1/chains") is None
    assert template("GET", "/v1/chains/43112/nothing") is None
    found = ROUTES.match("GET", split_path("/v1/chains/a%2Fb/addresses/0x1/balances:getNative"))
    assert found is not None and found[1] == {"chainId": "a/b", "address": "0x1"}
