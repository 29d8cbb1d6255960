"""The contract checker itself: it passes a conforming answer and fails each kind of deviation a
strict client (chainkit's zod schemas) rejects."""

from __future__ import annotations

import json

import pytest

from tests.openapi_contract import ContractError, contract

JSON = {"Content-Type": "application/json; charset=utf-8"}
CHAIN = {
    "chainId": "43112", "status": "OK", "chainName": "Avalanche Local (C-Chain)", "description": "local",
    "platformChainId": "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU", "vmName": "EVM",
    "rpcUrl": "http://127.0.0.1:9650/ext/bc/C/rpc", "isTestnet": True,
    "networkToken": {"name": "Avalanche", "symbol": "AVAX", "decimals": 18}, "enabledFeatures": ["nftIndexing"],
}
BLOCK = {"chainId": "43112", "blockNumber": "1", "blockTimestamp": 1, "blockHash": "0x01", "txCount": 0,
         "baseFee": "1", "gasUsed": "0", "gasLimit": "1", "gasCost": "0", "parentHash": "0x00", "feesSpent": "0",
         "cumulativeTransactions": "0"}


def check(body: object, path: str = "/v1/chains/43112", status: int = 200, headers: dict | None = None) -> object:
    return contract().check("GET", path, status, JSON if headers is None else headers, json.dumps(body))


def with_(base: dict, **changes: object) -> dict:
    return {**base, **changes}


def without(base: dict, key: str) -> dict:
    return {k: v for k, v in base.items() if k != key}


def test_a_conforming_answer_passes() -> None:
    assert check(CHAIN) == CHAIN
    assert check({"blocks": [BLOCK], "nextPageToken": "t"}, "/v1/chains/43112/blocks")
    assert check({"blocks": []}, "/v1/chains/43112/blocks")
    assert check({"message": ["pageSize must not be greater than 100"], "statusCode": 400, "error": "Bad Request"},
                 "/v1/chains/43112/blocks", 400)
    assert check({"results": [{"value": 1, "timestamp": 0}]}, "/v2/chains/43112/metrics/txCount")


@pytest.mark.parametrize(("body", "path", "needle"), [
    (with_(CHAIN, chainId=43112), "/v1/chains/43112", "is not of type 'string'"),            # wrong type
    (with_(CHAIN, isTestnet="true"), "/v1/chains/43112", "is not of type 'boolean'"),
    ({"blocks": [with_(BLOCK, blockNumber=1)]}, "/v1/chains/43112/blocks", "is not of type 'string'"),
    (with_(CHAIN, wsUrl=None), "/v1/chains/43112", "None is not of type 'string'"),           # null optional
    ({"blocks": [], "nextPageToken": None}, "/v1/chains/43112/blocks", "None is not of type 'string'"),
    (without(CHAIN, "networkToken"), "/v1/chains/43112", "'networkToken' is a required property"),  # missing
    ({"blocks": [without(BLOCK, "gasCost")]}, "/v1/chains/43112/blocks", "'gasCost' is a required property"),
    (with_(CHAIN, status="DOWN"), "/v1/chains/43112", "'DOWN' is not one of"),                 # enum outside
    (with_(CHAIN, enabledFeatures=["indexing"]), "/v1/chains/43112", "'indexing' is not one of"),
    (with_(CHAIN, chainID="43112"), "/v1/chains/43112", "Unevaluated properties are not allowed"),  # misspelt key
    ({"results": [{"value": "5", "timestamp": 0}]}, "/v2/chains/43112/metrics/txCount", "is not of type 'number'"),
])
def test_a_deviating_body_fails(body: object, path: str, needle: str) -> None:
    with pytest.raises(ContractError) as info:
        check(body, path)
    assert needle in str(info.value), str(info.value)


def test_a_wrong_content_type_fails() -> None:
    with pytest.raises(ContractError, match="Content-Type 'text/plain'"):
        check(CHAIN, headers={"Content-Type": "text/plain; charset=utf-8"})
    with pytest.raises(ContractError, match="Content-Type ''"):
        check(CHAIN, headers={})


def test_an_undeclared_status_or_a_foreign_error_body_fails() -> None:
    with pytest.raises(ContractError, match="status 418 is not declared"):
        check({"message": "x", "statusCode": 418, "error": "I'm a teapot"}, status=418)
    with pytest.raises(ContractError, match="is a required property"):
        check({"detail": "not found"}, status=404)
    with pytest.raises(ContractError, match="statusCode 400 in the body"):
        check({"message": "x", "statusCode": 400, "error": "Bad Request"}, status=404)


def test_an_unknown_route_is_no_operation() -> None:
    with pytest.raises(ContractError, match="no operation"):
        contract().find("GET", "/v1/nothing/here")
    api, template, _ = contract().find("GET", "/v2/chains/43114/btcb/bridged:getAddresses")
    assert (api.api, template) == ("metrics", "/v2/chains/43114/btcb/bridged:getAddresses")
    assert contract().find("GET", "/v1/chains/43112/addresses/0xab/balances:getNative?currency=usd")[1] == \
        "/v1/chains/{chainId}/addresses/{address}/balances:getNative"


def test_a_required_nullable_enum_takes_null_but_not_a_missing_key_or_another_value() -> None:
    balance = {"address": "0x01", "name": "T", "symbol": "T", "decimals": 18, "ercType": "ERC-20", "chainId": "43112",
               "balance": "1", "tokenReputation": None}
    native = {"name": "Avalanche", "symbol": "AVAX", "decimals": 18, "chainId": "43112", "balance": "0"}
    path = "/v1/chains/43112/addresses/0x01/balances:listErc20"
    for reputation in (None, "Benign", "Malicious"):
        assert check({"nativeTokenBalance": native, "erc20TokenBalances": [with_(balance, tokenReputation=reputation)]},
                     path)
    with pytest.raises(ContractError, match="'tokenReputation' is a required property"):
        check({"nativeTokenBalance": native, "erc20TokenBalances": [without(balance, "tokenReputation")]}, path)
    with pytest.raises(ContractError, match="'Unknown' is not one of"):
        check({"nativeTokenBalance": native, "erc20TokenBalances": [with_(balance, tokenReputation="Unknown")]}, path)
