"""eth_call, eth_estimateGas, eth_createAccessList and debug_traceCall read a call's arguments as
coreth does (internal/ethapi's ToMessage and setDefaults, core's ApplyMessage with
SkipAccountChecks and NoBaseFee): no nonce check, the gas capped, fee fields and block overrides
as coreth reads them, its errors word for word; the access list as geth's tracer finds it."""

from __future__ import annotations

import pytest
import rlp
from eth_account import Account
from eth_utils import keccak

from .rpc import call
from .test_cchain_web3 import CHAIN_ID, EWOQ, GWEI, deploy, node, rpc, rpc_error, send, w3  # noqa: F401 - fixtures

RPC_GAS_CAP = 50_000_000
ZERO = "0x" + "00" * 20
CODE_HOLDER = "0x" + "ab" * 20
# GAS, then NUMBER, TIMESTAMP, COINBASE, BASEFEE, GASLIMIT: each returned as one word
RETURN_GAS = "0x5a60005260206000f3"
RETURN_CONTEXT = "0x4360005242602052416040524860605245608052" + "60a06000f3"


@pytest.fixture(scope="module")
def token(w3):
    return deploy(w3, EWOQ, "Token", "Tok", "TOK", 10**24)


def balance_slot(holder: str) -> int:
    """Token.balanceOf[holder]: the mapping at slot 3."""
    return int.from_bytes(keccak(bytes(12) + bytes.fromhex(holder[2:]) + (3).to_bytes(32, "big")), "big")


def words(hex_data: str) -> list[int]:
    data = bytes.fromhex(hex_data[2:])
    return [int.from_bytes(data[i:i + 32], "big") for i in range(0, len(data), 32)]


# ------------------------------------------------------------------ the call's nonce


def test_a_calls_nonce_is_not_read(w3, rpc, token):
    bob = Account.create().address
    state_nonce = w3.eth.get_transaction_count(EWOQ.address)
    transfer = {"from": EWOQ.address, "to": token.address, "data": token.encode_abi("transfer", [bob, 1])}
    plain = int(call(rpc, "eth_estimateGas", [transfer]), 16)
    read = {"from": EWOQ.address, "to": token.address, "data": token.encode_abi("balanceOf", [EWOQ.address])}
    balance = call(rpc, "eth_call", [read])
    for nonce in (state_nonce + 1, state_nonce + 7, 0, 2**64 - 1):
        args = {**transfer, "nonce": hex(nonce)}
        assert int(call(rpc, "eth_estimateGas", [args]), 16) == plain
        assert call(rpc, "eth_call", [{**read, "nonce": hex(nonce)}]) == balance
        listed = call(rpc, "eth_createAccessList", [args])
        assert [e["address"] for e in listed["accessList"]] == [token.address.lower()]
        traced = call(rpc, "debug_traceCall", [args, "latest", {"tracer": "callTracer"}])
        assert traced["output"] == "0x" + (1).to_bytes(32, "big").hex()
    # a nonce past 64 bits is a bad argument, as geth's hexutil.Uint64 refuses it
    err = rpc_error(rpc, "eth_call", [{**transfer, "nonce": hex(2**64)}])
    assert err == {"code": -32602, "message": "invalid argument 0: json: cannot unmarshal hex number > 64 bits into "
                                              "Go struct field TransactionArgs.nonce of type hexutil.Uint64"}


def test_a_creation_in_a_call_takes_the_senders_state_nonce(w3, rpc):
    # init code returning ADDRESS: the created contract's address, whatever nonce the call names
    init = "0x3060005260206000f3"
    state_nonce = w3.eth.get_transaction_count(EWOQ.address)
    expected = keccak(rlp.encode([bytes.fromhex(EWOQ.address[2:]), state_nonce]))[12:]
    for nonce in (None, state_nonce + 3):
        args = {"from": EWOQ.address, "data": init}
        if nonce is not None:
            args["nonce"] = hex(nonce)
        out = call(rpc, "eth_call", [args])
        assert bytes.fromhex(out[2:])[12:] == expected


# ------------------------------------------------------------------ the other call arguments


def test_gas_above_the_rpc_cap_is_capped(rpc):
    override = {CODE_HOLDER: {"code": RETURN_GAS}}
    for gas in (2**40, RPC_GAS_CAP + 1):
        out = call(rpc, "eth_call", [{"to": CODE_HOLDER, "gas": hex(gas)}, "latest", override])
        assert words(out) == [RPC_GAS_CAP - 21000 - 2]  # GAS costs 2
    out = call(rpc, "eth_call", [{"to": CODE_HOLDER, "gas": hex(100_000)}, "latest", override])
    assert words(out) == [100_000 - 21000 - 2]
    err = rpc_error(rpc, "eth_call", [{"to": CODE_HOLDER, "gas": hex(2**64)}, "latest", override])
    assert err["code"] == -32602 and "hex number > 64 bits" in err["message"]


def test_missing_from_is_the_zero_address(rpc):
    out = call(rpc, "eth_call", [{"to": CODE_HOLDER, "data": "0x"}, "latest", {CODE_HOLDER: {"code": "0x3360005260206000f3"}}])
    assert words(out) == [0]  # CALLER
    err = rpc_error(rpc, "eth_call", [{"to": CODE_HOLDER, "value": "0x1"}])
    assert err == {"code": -32000, "message": f"err: insufficient funds for gas * price + value: address {ZERO} "
                                              f"have 0 want 1 (supplied gas {RPC_GAS_CAP})"}
    # the estimator starts at the block's gas limit
    limit = int(call(rpc, "eth_getBlockByNumber", ["latest", False])["gasLimit"], 16)
    err = rpc_error(rpc, "eth_estimateGas", [{"to": CODE_HOLDER, "value": "0x1"}])
    assert err == {"code": -32000, "message": f"failed with {limit} gas: insufficient funds for gas * price + "
                                              f"value: address {ZERO} have 0 want 1"}


def test_fee_fields_as_coreth_reads_them(w3, rpc):
    err = rpc_error(rpc, "eth_call", [{"from": EWOQ.address, "to": CODE_HOLDER, "gasPrice": "0x1",
                                       "maxFeePerGas": "0x2"}])
    assert err == {"code": -32000, "message": "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"}
    # a tip without a fee cap: the cap is 0, below the tip
    err = rpc_error(rpc, "eth_call", [{"from": EWOQ.address, "to": CODE_HOLDER, "maxPriorityFeePerGas": "0x5"}])
    assert err == {"code": -32000, "message": f"err: max priority fee per gas higher than max fee per gas: address "
                                              f"{EWOQ.address}, maxPriorityFeePerGas: 5, maxFeePerGas: 0 "
                                              f"(supplied gas {RPC_GAS_CAP})"}
    # a fee cap under the block's base fee (the base fee set by a block override)
    err = rpc_error(rpc, "eth_call", [{"from": EWOQ.address, "to": CODE_HOLDER, "maxFeePerGas": "0xa"}, "latest",
                                      None, {"baseFee": "0x3e8"}])
    assert err == {"code": -32000, "message": f"err: max fee per gas less than block base fee: address "
                                              f"{EWOQ.address}, maxFeePerGas: 10, baseFee: 1000 "
                                              f"(supplied gas {RPC_GAS_CAP})"}
    # with a price, BASEFEE reads the block's; without one, 0 (NoBaseFee)
    override = {CODE_HOLDER: {"code": RETURN_CONTEXT}}
    priced = words(call(rpc, "eth_call", [{"from": EWOQ.address, "to": CODE_HOLDER, "gasPrice": hex(GWEI)},
                                          "latest", override, {"baseFee": "0x7"}]))
    free = words(call(rpc, "eth_call", [{"to": CODE_HOLDER}, "latest", override, {"baseFee": "0x7"}]))
    assert priced[3] == 7 and free[3] == 0


def test_block_overrides(rpc):
    override = {CODE_HOLDER: {"code": RETURN_CONTEXT}}
    coinbase = "0x" + "cd" * 20
    out = words(call(rpc, "eth_call", [{"to": CODE_HOLDER}, "latest", override,
                                       {"number": "0x99", "time": "0x12345678", "coinbase": coinbase,
                                        "gasLimit": "0x7a1200"}]))
    assert out[:3] == [0x99, 0x12345678, int(coinbase, 16)] and out[4] == 0x7a1200
    head = words(call(rpc, "eth_call", [{"to": CODE_HOLDER}, "latest", override]))
    assert head[2] == int("0x0100000000000000000000000000000000000000", 16)  # the C-Chain's coinbase
    traced = call(rpc, "debug_traceCall", [{"to": CODE_HOLDER}, "latest",
                                           {"tracer": "callTracer", "stateOverrides": override,
                                            "blockOverrides": {"number": "0x99", "time": "0x12345678"}}])
    assert words(traced["output"])[:2] == [0x99, 0x12345678]
    # GASLIMIT is the block's, below the call's 50M gas (coreth keeps the header's limit)
    assert head[4] == int(call(rpc, "eth_getBlockByNumber", ["latest", False])["gasLimit"], 16) < RPC_GAS_CAP


# ------------------------------------------------------------------ eth_createAccessList


def test_access_list_of_a_transfer_is_the_token_and_its_two_slots(w3, rpc, token):
    bob = Account.create().address
    args = {"from": EWOQ.address, "to": token.address, "data": token.encode_abi("transfer", [bob, 1])}
    listed = call(rpc, "eth_createAccessList", [args])
    slots = sorted([balance_slot(EWOQ.address), balance_slot(bob)])
    assert listed["accessList"] == [{"address": token.address.lower(),
                                     "storageKeys": ["0x" + s.to_bytes(32, "big").hex() for s in slots]}]
    assert "error" not in listed
    # the gas of a run with that list: what the tx sent with it uses
    rc = send(w3, EWOQ, {**args, "gas": 100_000, "accessList": listed["accessList"]})
    assert rc.status == 1 and rc.gasUsed == int(listed["gasUsed"], 16)


def test_access_list_follows_geths_tracer(w3, rpc, token):
    probe = deploy(w3, EWOQ, "AccessProbe")
    other = Account.create().address
    send(w3, EWOQ, {"to": other, "value": 10**18})
    args = {"from": EWOQ.address, "to": probe.address,
            "data": probe.encode_abi("probe", [token.address, EWOQ.address, other])}
    listed = call(rpc, "eth_createAccessList", [args])
    expected = sorted([(probe.address.lower(), ["0x" + "00" * 32]),  # the recipient's own slot
                       (token.address.lower(), ["0x" + balance_slot(EWOQ.address).to_bytes(32, "big").hex()]),
                       (other.lower(), [])])  # BALANCE and EXTCODESIZE; sha256 (0x02) is a precompile
    assert [(e["address"], e["storageKeys"]) for e in listed["accessList"]] == expected
    rc = send(w3, EWOQ, {**args, "gas": 200_000, "accessList": listed["accessList"]})
    assert rc.status == 1 and rc.gasUsed == int(listed["gasUsed"], 16)
    # the C-Chain's coinbase, 0x0100…00, is also coreth's nativeasset genesis contract: a precompile,
    # so even BALANCE(block.coinbase) leaves it out
    cb = call(rpc, "eth_createAccessList", [{"from": EWOQ.address, "to": probe.address,
                                             "data": probe.encode_abi("coinbaseBalance", [])}])
    assert cb["accessList"] == []
    plain = call(rpc, "eth_createAccessList", [{"from": EWOQ.address, "to": other, "value": "0x1"}])
    assert plain == {"accessList": [], "gasUsed": hex(21000)}


def test_access_list_refusals_and_failures(w3, rpc, token):
    # a reverting call: the list so far, the gas and the EVM's error
    failing = call(rpc, "eth_createAccessList", [{"from": EWOQ.address, "to": token.address,
                                                  "data": token.encode_abi("fail", [1])}])
    assert failing["accessList"] == [] and failing["error"] == "execution reverted"
    err = rpc_error(rpc, "eth_createAccessList", [{"from": EWOQ.address}])
    assert err == {"code": -32000, "message": "contract creation without any data provided"}
    err = rpc_error(rpc, "eth_createAccessList", [{"from": EWOQ.address, "to": token.address, "gasPrice": "0x0"}])
    assert err == {"code": -32000, "message": "gasPrice must be non-zero after london fork"}
    err = rpc_error(rpc, "eth_createAccessList", [{"from": EWOQ.address, "to": token.address, "chainId": "0x1"}])
    assert err == {"code": -32000, "message": f"chainId does not match node's (have=1, want={CHAIN_ID})"}
    # an unfunded sender cannot buy the gas setDefaults' fees ask for
    poor = Account.create().address
    err = rpc_error(rpc, "eth_createAccessList", [{"from": poor, "to": token.address}])
    assert err["code"] == -32000
    assert err["message"].startswith("failed to apply transaction: 0x")
    assert f"err: insufficient funds for gas * price + value: address {poor} have 0 want " in err["message"]


def test_state_overrides(rpc, token):
    holder = "0x" + "12" * 20
    read = {"to": token.address, "data": token.encode_abi("balanceOf", [holder])}
    slot = "0x" + balance_slot(holder).to_bytes(32, "big").hex()
    supply_slot = "0x" + (2).to_bytes(32, "big").hex()
    seven = "0x" + (7).to_bytes(32, "big").hex()
    # stateDiff patches one slot; state replaces the whole storage (the supply reads 0 then)
    assert words(call(rpc, "eth_call", [read, "latest", {token.address: {"stateDiff": {slot: seven}}}])) == [7]
    total = {"to": token.address, "data": token.encode_abi("totalSupply", [])}
    assert words(call(rpc, "eth_call", [total, "latest", {token.address: {"stateDiff": {slot: seven}}}])) != [0]
    assert words(call(rpc, "eth_call", [total, "latest", {token.address: {"state": {slot: seven}}}])) == [0]
    assert words(call(rpc, "eth_call", [total, "latest", {token.address: {"state": {supply_slot: seven}}}])) == [7]
    # overrides reach the estimator: an empty account with a balance can pay for a transfer
    assert call(rpc, "eth_estimateGas", [{"from": holder, "to": EWOQ.address, "value": "0x10"}, "latest",
                                         {holder: {"balance": "0x100"}}]) == hex(21000)
    err = rpc_error(rpc, "eth_call", [read, "latest", {token.address: {"state": {slot: seven}, "stateDiff": {}}}])
    assert err == {"code": -32000, "message": f"account {token.address} has both 'state' and 'stateDiff'"}
    err = rpc_error(rpc, "eth_call", [read, "latest", {token.address: {"stateDiff": {"0x01": seven}}}])
    assert err == {"code": -32602, "message": "invalid argument 2: hex string has length 2, want 64 for common.Hash"}
    err = rpc_error(rpc, "eth_call", [read, "latest", {token.address: {"nonce": hex(2**64)}}])
    assert err["code"] == -32602 and "OverrideAccount.nonce" in err["message"]
    err = rpc_error(rpc, "eth_call", [read, "latest", {token.address: "0x1"}])
    assert err["code"] == -32602


# ------------------------------------------------------------------ setDefaults: fill and sign


def test_fill_transaction_as_coreth_fills_it(w3, rpc):
    bob = Account.create().address
    nonce = w3.eth.get_transaction_count(EWOQ.address, "pending")
    tip = int(call(rpc, "eth_maxPriorityFeePerGas"), 16)
    base = int(call(rpc, "eth_getBlockByNumber", ["latest", False])["baseFeePerGas"], 16)
    filled = call(rpc, "eth_fillTransaction", [{"from": EWOQ.address, "to": bob, "value": "0x5"}])
    tx = filled["tx"]
    assert tx == {"type": "0x2", "chainId": hex(CHAIN_ID), "nonce": hex(nonce), "to": bob.lower(), "gas": hex(21000),
                  "gasPrice": None, "maxPriorityFeePerGas": hex(tip), "maxFeePerGas": hex(tip + 2 * base),
                  "value": "0x5", "input": "0x", "accessList": [], "v": "0x0", "r": "0x0", "s": "0x0",
                  "yParity": "0x0", "hash": tx["hash"]}
    raw = bytes.fromhex(filled["raw"][2:])
    assert raw[0] == 2 and rlp.decode(raw[1:])[:9] == [
        rlp.sedes.big_endian_int.serialize(v) for v in (CHAIN_ID, nonce, tip, tip + 2 * base, 21000)] + [
        bytes.fromhex(bob[2:]), b"\x05", b"", []]
    assert keccak(raw) == bytes.fromhex(tx["hash"][2:])
    # signed by the caller, it goes through as filled
    signed = EWOQ.sign_transaction({"type": 2, "chainId": CHAIN_ID, "nonce": nonce, "to": bob, "value": 5,
                                    "gas": 21000, "maxPriorityFeePerGas": tip, "maxFeePerGas": tip + 2 * base})
    rc = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction), timeout=10)
    assert rc.status == 1 and w3.eth.get_balance(bob) == 5
    # gasPrice: a legacy tx; an access list with it: EIP-2930
    legacy = call(rpc, "eth_fillTransaction", [{"from": EWOQ.address, "to": bob, "gasPrice": hex(GWEI)}])["tx"]
    assert (legacy["type"], legacy["gasPrice"], legacy["maxFeePerGas"], "chainId" in legacy) == ("0x0", hex(GWEI), None,
                                                                                                   False)
    typed = call(rpc, "eth_fillTransaction", [{"from": EWOQ.address, "to": bob, "gasPrice": hex(GWEI),
                                               "accessList": []}])["tx"]
    assert typed["type"] == "0x1" and typed["accessList"] == [] and typed["gas"] == hex(21000)
    err = rpc_error(rpc, "eth_fillTransaction", [{"from": EWOQ.address, "to": bob, "chainId": "0x5"}])
    assert err == {"code": -32000, "message": f"chainId does not match node's (have=5, want={CHAIN_ID})"}


def test_sign_transaction_gives_the_signed_tx_object(w3, rpc):
    bob = Account.create().address
    signed = call(rpc, "eth_signTransaction", [{"from": EWOQ.address, "to": bob, "value": "0x7"}])
    tx = signed["tx"]
    assert set(tx) == {"type", "chainId", "nonce", "to", "gas", "gasPrice", "maxPriorityFeePerGas", "maxFeePerGas",
                       "value", "input", "accessList", "v", "r", "s", "yParity", "hash"}
    assert Account.recover_transaction(signed["raw"]) == EWOQ.address
    h = w3.eth.send_raw_transaction(signed["raw"])
    assert "0x" + h.hex().removeprefix("0x") == tx["hash"]
    assert w3.eth.wait_for_transaction_receipt(h, timeout=10).status == 1 and w3.eth.get_balance(bob) == 7
