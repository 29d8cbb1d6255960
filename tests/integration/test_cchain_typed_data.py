"""EIP-712 signing by the node's accounts: eth_signTypedData_v4, _v3 and eth_signTypedData, with
known answers from MetaMask's reference implementation (@metamask/eth-sig-util 8, signTypedData
with the same key) and Anvil's errors."""

from __future__ import annotations

import json

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data

from simnode.config import NodeConfig
from simnode.node import Node

from .rpc import call
from .test_cchain_web3 import EWOQ, rpc_error

DOMAIN_TYPE = [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
               {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}]
PERMIT = {
    "types": {"EIP712Domain": DOMAIN_TYPE,
              "Permit": [{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
                         {"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"},
                         {"name": "deadline", "type": "uint256"}]},
    "primaryType": "Permit",
    "domain": {"name": "Tok", "version": "1", "chainId": 43112,
               "verifyingContract": "0x17ab05351fc94a1a67bf3f56ddbb941ae6c63e25"},
    "message": {"owner": EWOQ.address, "spender": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826",
                "value": "1000000000000000000", "nonce": 0, "deadline": str(2**256 - 1)},
}
MAIL = {  # nested structs and arrays of them
    "types": {"EIP712Domain": DOMAIN_TYPE,
              "Person": [{"name": "name", "type": "string"}, {"name": "wallets", "type": "address[]"}],
              "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person[]"},
                       {"name": "contents", "type": "string"}]},
    "primaryType": "Mail",
    "domain": {"name": "Ether Mail", "version": "1", "chainId": 43112,
               "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
    "message": {"from": {"name": "Cow", "wallets": ["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826",
                                                    "0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"]},
                "to": [{"name": "Bob", "wallets": ["0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"]}],
                "contents": "Hello, Bob!"},
}
LEGACY = [{"type": "string", "name": "message", "value": "Hi, Alice!"}, {"type": "uint8", "name": "value", "value": 10},
          {"type": "bytes", "name": "blob", "value": "0xdeadbeef"},
          {"type": "address", "name": "who", "value": EWOQ.address}]
# eth-sig-util's signTypedData({privateKey: ewoq, data, version}) for each
PERMIT_SIG = ("0x7ce329a53674110ba838af2dc2e31bafd1986ed8f987bd282ac3b980bf8fafc16090ef304d5af986f7a13e3b3f42c2035"
              "1829b213a2168dc07490a8783c1c7711b")
MAIL_SIG = ("0x1699bc96c4c8e125889713d32c26e525189d593a722e0aa91b551cbc35608304588e99979655a3ab61002a9c77408baf3f35"
            "2cd7024025a9c4d620c7450c44f51c")
LEGACY_SIG = ("0xd8e43c28c7c6861994099fac5eabe656ca7b9ca1258dbefae219a5a240c9895e10efb8bb52607aef0f5bd723e77b31db2b3c"
              "157903d35ee903dad89478ccde991b")


@pytest.fixture(scope="module")
def rpc():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as handle:
        yield handle.url + "/ext/bc/C/rpc"


def test_v4_signs_as_metamask_does(rpc):
    assert EWOQ.address.lower() in [a.lower() for a in call(rpc, "eth_accounts")]
    assert call(rpc, "eth_signTypedData_v4", [EWOQ.address, PERMIT]) == PERMIT_SIG
    assert call(rpc, "eth_signTypedData_v4", [EWOQ.address, MAIL]) == MAIL_SIG
    # viem and ethers send the typed data as a JSON string
    assert call(rpc, "eth_signTypedData_v4", [EWOQ.address, json.dumps(MAIL)]) == MAIL_SIG
    signer = Account.recover_message(encode_typed_data(full_message=MAIL), signature=MAIL_SIG)
    assert signer == EWOQ.address


def test_v3_and_the_first_form(rpc):
    assert call(rpc, "eth_signTypedData_v3", [EWOQ.address, PERMIT]) == PERMIT_SIG
    err = rpc_error(rpc, "eth_signTypedData_v3", [EWOQ.address, MAIL])
    assert err == {"code": -32602, "message": "Arrays are unimplemented in encodeData; use V4 extension"}
    # MetaMask's order ([data, address]) and the address first
    assert call(rpc, "eth_signTypedData", [LEGACY, EWOQ.address]) == LEGACY_SIG
    assert call(rpc, "eth_signTypedData", [EWOQ.address, LEGACY]) == LEGACY_SIG
    assert call(rpc, "eth_signTypedData", [EWOQ.address, PERMIT]) == PERMIT_SIG


def test_unknown_accounts_and_malformed_typed_data(rpc):
    stranger = Account.create().address
    assert rpc_error(rpc, "eth_signTypedData_v4", [stranger, PERMIT]) == {"code": -32602,
                                                                          "message": "No Signer available"}
    missing = {**MAIL, "primaryType": "Letter"}
    assert rpc_error(rpc, "eth_signTypedData_v4", [EWOQ.address, missing]) == {
        "code": -32602, "message": "missing type in type resolution: Letter"}
    for bad in ({"types": {}}, "notjson", [1, 2],
                {**PERMIT, "message": {**PERMIT["message"], "nonce": "not a number"}},
                {**MAIL, "types": {**MAIL["types"], "Mail": [{"name": "from", "type": "Nobody"}]}}):
        err = rpc_error(rpc, "eth_signTypedData_v4", [EWOQ.address, bad])
        assert err["code"] == -32602 and err["message"]
    assert rpc_error(rpc, "eth_signTypedData_v4", [EWOQ.address])["code"] == -32602
