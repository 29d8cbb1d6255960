"""The Webhooks API routes over plain HTTP, every answer checked against the real OpenAPI document:
create (201) for the three event types, list with page walks and the status filter, get, update,
deactivate, the addresses of an EVM webhook (list, add, remove), the shared secret (get, rotate:
201); bad input gets a 400 NestJS body and changes nothing, an unknown ID a 404; webhooks and the
secret outlive a restart on the same data directory."""

from __future__ import annotations

import pytest

from simnode.config import NodeConfig
from simnode.formats import format_address, node_id_to_str
from simnode.node import Node

from .dataapi import api, request

W = "/v1/webhooks"
ADDR = ["0x000000000000000000000000000000000000dEaD", "0x00000000000000000000000000000000000000AA"]


def evm_body(**extra):
    return {"eventType": "address_activity", "url": "http://127.0.0.1:9/hook", "chainId": "43112",
            "metadata": {"addresses": list(ADDR)}, **extra}


def no_nulls(value) -> bool:
    if isinstance(value, dict):
        return all(v is not None and no_nulls(v) for v in value.values())
    if isinstance(value, list):
        return all(no_nulls(v) for v in value)
    return True


@pytest.fixture(scope="module")
def h(tmp_path_factory):
    config = NodeConfig(http_port=0, data_dir=str(tmp_path_factory.mktemp("wh")), clock_mode="virtual",
                        log_level="WARN")
    with Node.start_in_thread(config) as handle:
        yield handle


def test_create_get_list_update_deactivate(h):
    evm = api(h.url, W, 201, "POST", evm_body(name="mine", includeLogs=True))
    assert evm["status"] == "active" and evm["name"] == "mine" and evm["description"] == ""
    assert evm["chainId"] == "43112" and evm["includeLogs"] is True and evm["includeInternalTxs"] is False
    assert api(h.url, f"{W}/{evm['id']}") == evm
    hrp = h.node.genesis.hrp
    alice = format_address("P", hrp, b"\x01" * 20)
    primary = api(h.url, W, 201, "POST", {
        "eventType": "primary_network_address_activity", "url": "https://127.0.0.1:9/p", "network": "fuji",
        "chainId": "p-chain", "metadata": {"keyType": "addresses", "keys": [alice], "subEvents": {
            "addressActivitySubEvents": ["balance_change", "balance_threshold"]},
            "balanceThresholdFilter": {"balanceType": "unlockedUnstaked", "balanceThreshold": "5"}}})
    assert primary["metadata"]["keys"] == [alice] and "includeLogs" not in primary
    node = node_id_to_str(h.node.node_id)
    validator = api(h.url, W, 201, "POST", {
        "eventType": "validator_activity", "url": "http://localhost:9/v", "network": "mainnet", "name": "v",
        "metadata": {"keyType": "nodeId", "keys": [node],
                     "subEvents": {"validatorActivitySubEvents": ["validator_stake", "reward_distribution"]}}})
    for w in (evm, primary, validator):
        assert no_nulls(w)
    listed = api(h.url, W + "?pageSize=100")["webhooks"]
    ids = [w["id"] for w in listed]
    assert {evm["id"], primary["id"], validator["id"]} <= set(ids)
    # page walk, pageSize 1: every webhook once, newest first
    walked, token = [], None
    while True:
        page = api(h.url, W + "?pageSize=1" + (f"&pageToken={token}" if token else ""))
        walked += [w["id"] for w in page["webhooks"]]
        token = page.get("nextPageToken")
        if not token:
            break
    assert walked == ids
    updated = api(h.url, f"{W}/{evm['id']}", 200, "PATCH", {"name": "renamed", "url": "https://example.test/x",
                                                             "includeInternalTxs": True})
    assert (updated["name"], updated["url"], updated["includeInternalTxs"]) == ("renamed", "https://example.test/x",
                                                                                True)
    gone = api(h.url, f"{W}/{evm['id']}", 200, "DELETE")
    assert gone["status"] == "inactive"
    assert evm["id"] in [w["id"] for w in api(h.url, W + "?status=inactive&pageSize=100")["webhooks"]]
    assert evm["id"] not in [w["id"] for w in api(h.url, W + "?status=active&pageSize=100")["webhooks"]]
    again = api(h.url, f"{W}/{evm['id']}", 200, "PATCH", {"status": "active"})
    assert again["status"] == "active"


def test_addresses(h):
    w = api(h.url, W, 201, "POST", evm_body())
    path = f"{W}/{w['id']}/addresses"
    assert api(h.url, path) == {"addresses": ADDR, "totalAddresses": 2}
    more = ["0x" + f"{i:040x}" for i in range(1, 26)]
    added = api(h.url, path, 200, "PATCH", {"addresses": more + [ADDR[0].lower()]})
    assert added["metadata"]["addresses"] == ADDR + more  # an address already watched is not added twice
    first = api(h.url, path + "?pageSize=20")
    assert first["totalAddresses"] == 27 and len(first["addresses"]) == 20
    rest = api(h.url, path + f"?pageSize=20&pageToken={first['nextPageToken']}")
    assert first["addresses"] + rest["addresses"] == ADDR + more and "nextPageToken" not in rest
    removed = api(h.url, path, 200, "DELETE", {"addresses": more + [ADDR[1].upper().replace("0X", "0x")]})
    assert removed["metadata"]["addresses"] == [ADDR[0]]


def test_shared_secret(h):
    first = api(h.url, f"{W}:getSharedSecret")["secret"]
    assert first == api(h.url, f"{W}:getSharedSecret")["secret"]
    rotated = api(h.url, f"{W}:generateOrRotateSharedSecret", 201, "POST")["secret"]
    assert rotated != first and api(h.url, f"{W}:getSharedSecret")["secret"] == rotated


BAD_CREATES = [
    ({**evm_body(), "url": "ftp://127.0.0.1/x"}, "url must be a URL address with the http or https protocol"),
    ({**evm_body(), "url": "javascript:alert(1)"}, "url must be a URL address with the http or https protocol"),
    ({**evm_body(), "url": "/relative"}, "url must be a URL address with the http or https protocol"),
    ({**evm_body(), "url": 5}, "url must be a string"),
    ({**evm_body(), "eventType": "nope"}, "eventType must be one of the following values: address_activity, "
                                          "primary_network_address_activity, validator_activity"),
    ({k: v for k, v in evm_body().items() if k != "eventType"}, "eventType must be one of the following values"),
    ({**evm_body(), "chainId": "999999"}, "chainId chain 999999 is not an EVM chain of this node"),
    ({**evm_body(), "metadata": {"addresses": ["0x12"]}}, "each value in metadata.addresses must be an Ethereum"),
    ({**evm_body(), "metadata": {"addresses": "0x12"}}, "metadata.addresses must be an array"),
    ({**evm_body(), "metadata": []}, "metadata must be an object"),
    ({**evm_body(), "includeLogs": "yes"}, "includeLogs must be a boolean value"),
    ({**evm_body(), "metadata": {"addresses": ADDR, "eventSignatures": ["0x1234"]}},
     "each value in metadata.eventSignatures must be a 32-byte hexadecimal string"),
    ({"eventType": "validator_activity", "url": "http://127.0.0.1:1/x", "network": "local",
      "metadata": {"keyType": "nodeId", "keys": ["NodeID-x"], "subEvents": {"validatorActivitySubEvents": []}}},
     "network must be one of the following values: mainnet, fuji"),
    ({"eventType": "validator_activity", "url": "http://127.0.0.1:1/x", "network": "fuji",
      "metadata": {"keyType": "nodeId", "keys": ["a", "b"], "subEvents": {"validatorActivitySubEvents": ["x"]}}},
     "metadata.keys must contain exactly 1 element"),
    ({"eventType": "primary_network_address_activity", "url": "http://127.0.0.1:1/x", "network": "fuji",
      "chainId": "c-chain", "metadata": {"keyType": "addresses", "keys": [],
                                         "subEvents": {"addressActivitySubEvents": ["balance_change"]}}},
     "chainId must be p-chain or x-chain"),
    ({"eventType": "primary_network_address_activity", "url": "http://127.0.0.1:1/x", "network": "fuji",
      "chainId": "p-chain", "metadata": {"keyType": "addresses", "keys": ["X-fuji1abc"],
                                         "subEvents": {"addressActivitySubEvents": ["balance_change"]}}},
     "each value in metadata.keys must be an P-Chain address of this network"),
]


@pytest.mark.parametrize("body,message", BAD_CREATES)
def test_bad_creates_change_nothing(h, body, message):
    before = api(h.url, W + "?pageSize=100")
    got = api(h.url, W, 400, "POST", body)
    assert got["statusCode"] == 400 and got["error"] == "Bad Request"
    assert any(message in m for m in got["message"]), got
    assert api(h.url, W + "?pageSize=100") == before


def test_bad_requests_on_the_other_routes(h):
    w = api(h.url, W, 201, "POST", evm_body())
    p = api(h.url, W + "?pageSize=100")["webhooks"]
    primary = next(x for x in p if x["eventType"] != "address_activity") if any(
        x["eventType"] != "address_activity" for x in p) else None
    for path, method, body, status in [
        (f"{W}/no-such-webhook", "GET", None, 404), (f"{W}/no-such-webhook", "PATCH", {"name": "x"}, 404),
        (f"{W}/no-such-webhook", "DELETE", None, 404), (f"{W}/no-such-webhook/addresses", "GET", None, 404),
        (W + "?pageSize=0", "GET", None, 400), (W + "?pageSize=101", "GET", None, 400),
        (W + "?status=gone", "GET", None, 400), (W + "?pageToken=garbage", "GET", None, 400),
        (f"{W}/{w['id']}", "PATCH", {"status": "paused"}, 400), (f"{W}/{w['id']}", "PATCH", {"url": "ws://x"}, 400),
        (f"{W}/{w['id']}", "PATCH", {"name": 7}, 400),
        (f"{W}/{w['id']}/addresses", "PATCH", {"addresses": ["nope"]}, 400),
        (f"{W}/{w['id']}/addresses", "PATCH", {}, 400),
        (f"{W}/{w['id']}/addresses?pageSize=500", "GET", None, 400),
    ] + ([(f"{W}/{primary['id']}/addresses", "GET", None, 400)] if primary else []):
        got = api(h.url, path, status, method, body)
        assert got["statusCode"] == status, (path, got)
    assert api(h.url, f"{W}/{w['id']}") == w  # nothing changed


def test_webhooks_and_secret_outlive_a_restart(tmp_path):
    config = NodeConfig(http_port=0, data_dir=str(tmp_path), clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        w = api(handle.url, W, 201, "POST", evm_body(description="kept"))
        secret = api(handle.url, f"{W}:getSharedSecret")["secret"]
    with Node.start_in_thread(config) as handle:
        assert api(handle.url, f"{W}/{w['id']}") == w
        assert api(handle.url, f"{W}:getSharedSecret")["secret"] == secret
        status, _, raw = request(handle.url, "GET", W)
        assert status == 200 and b"null" not in raw
