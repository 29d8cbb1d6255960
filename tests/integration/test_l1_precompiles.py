"""subnet-EVM's stateful precompiles on an L1 chain, through a real node and web3.py: each one
enabled by the L1's genesis (or, in the last tests, by a timestamp and by upgrade.json), every
function, the role transitions, events, errors and gas as subnet-evm gives them, calls from a
contract (through the interface, STATICCALL, DELEGATECALL, with value), and replays giving the
same blocks and state roots.

Gas: a tx straight to a precompile uses 21000 + its calldata gas + the precompile's gas
(subnet-evm's constants: write 20000, read 5000, log 375 + 375 per topic + 8 per data byte);
a precompile error uses all the gas of the call."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from eth_account import Account
from eth_utils import to_checksum_address
from web3 import Web3

from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node

from .rpc import RPCFailure, call
from .test_l1_evm_chain import EWOQ, FEE_CONFIG, GENESIS, GWEI, L1_CHAIN_ID, create_l1, l1_web3

CALLER = json.loads((Path(__file__).resolve().parents[1] / "contracts" / "PrecompileCaller.json").read_text())
ABIS = CALLER["interfaces"]
DEPLOYER_ALLOW_LIST = "0x0200000000000000000000000000000000000000"
NATIVE_MINTER = "0x0200000000000000000000000000000000000001"
TX_ALLOW_LIST = "0x0200000000000000000000000000000000000002"
FEE_MANAGER = "0x0200000000000000000000000000000000000003"
REWARD_MANAGER = "0x0200000000000000000000000000000000000004"
BLACKHOLE = "0x0100000000000000000000000000000000000000"
ZERO = "0x" + "00" * 20
A, B, C, M = (Account.from_key(bytes([i]) * 32) for i in (1, 2, 3, 4))
FUNDS = 10**24
NONE, ENABLED, ADMIN, MANAGER = 0, 1, 2, 3
ROLE_SET_GAS = 20_000 + 2_131


def genesis(**precompiles: dict) -> bytes:
    g = copy.deepcopy(GENESIS)
    g["config"].update(precompiles)
    for acct in (A, B, C, M):
        g["alloc"][acct.address[2:].lower()] = {"balance": hex(FUNDS)}
    return json.dumps(g).encode()


def start_l1(h, **precompiles: dict) -> tuple[str, Web3]:
    _, chain_id = create_l1(h, genesis(**precompiles))
    rpc = h.url + f"/ext/bc/{id_to_str(chain_id)}/rpc"
    return rpc, l1_web3(rpc)


def tx_dict(w3: Web3, acct, to: str | None, data: str | bytes = b"", value: int = 0, gas: int = 1_000_000,
            tip: int = GWEI) -> dict:
    tx = {"chainId": L1_CHAIN_ID, "nonce": w3.eth.get_transaction_count(acct.address, "pending"), "value": value,
          "data": data, "gas": gas, "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": tip}
    if to is not None:
        tx["to"] = to
    return tx


def send(w3: Web3, acct, to: str | None, data: str | bytes = b"", value: int = 0, gas: int = 1_000_000):
    raw = acct.sign_transaction(tx_dict(w3, acct, to, data, value, gas)).raw_transaction
    return w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(raw), timeout=10, poll_latency=0.01)


def transact(w3: Web3, acct, fn, value: int = 0, gas: int = 1_000_000):
    """Send a contract function call (web3 ContractFunction) from `acct`; the receipt."""
    return send(w3, acct, fn.address, fn._encode_transaction_data(), value, gas)


def call_error(rpc: str, sender, to: str, data: str) -> str:
    """The error eth_call answers (a precompile error is not a revert: code -32000)."""
    with pytest.raises(RPCFailure) as err:
        call(rpc, "eth_call", [{"from": sender.address, "to": to, "data": data}, "latest"])
    assert err.value.error["code"] == -32000
    return err.value.error["message"]


def calldata_gas(data: str | bytes) -> int:
    raw = bytes.fromhex(data[2:]) if isinstance(data, str) else data
    return sum(4 if b == 0 else 16 for b in raw)


def direct_gas(fn, precompile_gas: int) -> int:
    """Gas of a tx from an EOA straight to a precompile."""
    return 21_000 + calldata_gas(fn._encode_transaction_data()) + precompile_gas


def deploy_caller(w3: Web3, acct):
    rc = send(w3, acct, None, CALLER["bytecode"], gas=2_000_000)
    assert rc.status == 1
    return w3.eth.contract(address=rc.contractAddress, abi=CALLER["abi"])


def results(caller, rc) -> list[tuple[bool, bytes]]:
    return [(e.args.ok, bytes(e.args.data)) for e in caller.events.Result().process_receipt(rc)]


def role_set(contract, rc) -> list[tuple[int, str, str, int]]:
    return [(e.args.role, e.args.account, e.args.sender, e.args.oldRole)
            for e in contract.events.RoleSet().process_receipt(rc)]


# ----------------------------------------------------------------------------- tx allow list


def test_tx_allow_list_roles_events_errors_and_gas():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        rpc, w3 = start_l1(h, txAllowListConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address],
                                                 "enabledAddresses": [A.address]})
        al = w3.eth.contract(address=TX_ALLOW_LIST, abi=ABIS["IAllowList"])

        def role(acct) -> int:
            return al.functions.readAllowList(acct if isinstance(acct, str) else acct.address).call()

        # activated at genesis: code 0x01 and nonce 1 at the address, roles at slot leftpad32(account)
        assert w3.eth.get_code(TX_ALLOW_LIST) == b"\x01" and w3.eth.get_transaction_count(TX_ALLOW_LIST) == 1
        assert (role(EWOQ), role(A), role(B)) == (ADMIN, ENABLED, NONE)
        assert int.from_bytes(w3.eth.get_storage_at(TX_ALLOW_LIST, int(EWOQ.address, 16)), "big") == ADMIN

        # admission refuses a sender without a role, with subnet-evm's error, and keeps nothing
        raw = B.sign_transaction(tx_dict(w3, B, "0x" + "77" * 20, value=1, gas=21000)).raw_transaction
        with pytest.raises(RPCFailure, match=f"^cannot issue transaction from non-allow listed address: {B.address}$"):
            call(rpc, "eth_sendRawTransaction", [raw.to_0x_hex()])
        assert w3.eth.get_transaction_count(B.address, "pending") == 0
        assert call(rpc, "txpool_status") == {"pending": "0x0", "queued": "0x0"}
        # eth_call and eth_estimateGas skip the check, as subnet-evm's calls do
        assert call(rpc, "eth_estimateGas", [{"from": B.address, "to": "0x" + "77" * 20, "value": "0x1"}]) == hex(21000)
        assert send(w3, A, "0x" + "77" * 20, value=1, gas=21000).status == 1  # Enabled may send

        # a read, and the admin's role changes: RoleSet(role, account, sender, oldRole), 20000 + 2131 gas
        rc = transact(w3, A, al.functions.readAllowList(EWOQ.address))
        assert rc.status == 1 and rc.gasUsed == direct_gas(al.functions.readAllowList(EWOQ.address), 5000)
        fn = al.functions.setManager(M.address)
        rc = transact(w3, EWOQ, fn)
        assert rc.status == 1 and rc.gasUsed == direct_gas(fn, ROLE_SET_GAS)
        assert role_set(al, rc) == [(MANAGER, M.address, EWOQ.address, NONE)]
        log = rc.logs[0]
        assert log.address == TX_ALLOW_LIST and log.topics[0].to_0x_hex() == \
            "0xcdb7ea01f00a414d78757bdb0f6391664ba3fedf987eed280927c1e7d695be3e"

        # a manager moves accounts between None and Enabled only
        rc = transact(w3, M, al.functions.setEnabled(B.address))
        assert role_set(al, rc) == [(ENABLED, B.address, M.address, NONE)] and role(B) == ENABLED
        assert send(w3, B, "0x" + "77" * 20, value=1, gas=21000).status == 1
        rc = transact(w3, M, al.functions.setNone(B.address))
        assert role_set(al, rc) == [(NONE, B.address, M.address, ENABLED)] and role(B) == NONE
        for fn, old, new in ((al.functions.setAdmin(C.address), "NoRole", "AdminRole"),
                             (al.functions.setManager(C.address), "NoRole", "ManagerRole"),
                             (al.functions.setNone(EWOQ.address), "AdminRole", "NoRole"),
                             (al.functions.setEnabled(M.address), "ManagerRole", "EnabledRole")):
            data = fn._encode_transaction_data()
            assert call_error(rpc, M, TX_ALLOW_LIST, data) == \
                f"cannot modify allow list: modify address: {M.address}, from role: {old}, to role: {new}"
            rc = transact(w3, M, fn, gas=100_000)
            assert rc.status == 0 and rc.gasUsed == 100_000 and not rc.logs  # an error uses all the gas
        # Enabled may not change roles, not even its own
        assert call_error(rpc, A, TX_ALLOW_LIST, al.functions.setNone(A.address)._encode_transaction_data()) == \
            f"cannot modify allow list: modify address: {A.address}, from role: EnabledRole, to role: NoRole"
        # an admin may: promote, demote, and make another admin who then acts
        for fn, expected in ((al.functions.setAdmin(B.address), (ADMIN, B.address, EWOQ.address, NONE)),
                             (al.functions.setEnabled(C.address), (ENABLED, C.address, EWOQ.address, NONE))):
            assert role_set(al, transact(w3, EWOQ, fn)) == [expected]
        assert role_set(al, transact(w3, B, al.functions.setEnabled(M.address))) == \
            [(ENABLED, M.address, B.address, MANAGER)]
        assert role_set(al, transact(w3, B, al.functions.setNone(C.address))) == \
            [(NONE, C.address, B.address, ENABLED)]
        assert (role(B), role(C), role(M)) == (ADMIN, NONE, ENABLED)

        # bad input: geth's abi errors (no length checks after Durango: extra bytes are fine)
        set_c = al.functions.setEnabled(C.address)._encode_transaction_data()
        assert call_error(rpc, EWOQ, TX_ALLOW_LIST, set_c[:10]) == \
            "abi: attempting to unmarshal an empty string while arguments are expected"
        assert call_error(rpc, EWOQ, TX_ALLOW_LIST, set_c[:50]) == \
            "abi: cannot marshal in to go type: length insufficient 20 require 32"
        assert call(rpc, "eth_call", [{"from": EWOQ.address, "to": TX_ALLOW_LIST, "data": set_c + "00" * 7}]) == "0x"
        assert call_error(rpc, EWOQ, TX_ALLOW_LIST, "0xdeadbeef") == "invalid function selector: 0xdeadbeef"
        assert call_error(rpc, EWOQ, TX_ALLOW_LIST, "0x0102") == \
            "missing function selector to precompile - input length (2)"

        # from a contract: STATICCALL refuses writes (reads work), DELEGATECALL reverts with no gas
        # left, and the contract itself needs a role to change roles
        caller = deploy_caller(w3, EWOQ)
        rc = transact(w3, EWOQ, caller.functions.staticcallRaw(TX_ALLOW_LIST, set_c))
        assert rc.status == 1 and results(caller, rc) == [(False, b"")] and role(C) == NONE
        assert caller.functions.readRole(TX_ALLOW_LIST, EWOQ.address).call() == ADMIN
        read = al.functions.readAllowList(EWOQ.address)._encode_transaction_data()
        assert caller.functions.staticcallRaw(TX_ALLOW_LIST, read).call() == [True, (ADMIN).to_bytes(32, "big")]
        rc = transact(w3, EWOQ, caller.functions.delegatecallRaw(TX_ALLOW_LIST, read), gas=300_000)
        assert rc.status == 1 and results(caller, rc) == [(False, b"")] and rc.gasUsed > 250_000
        with pytest.raises(RPCFailure, match="^execution reverted$"):
            call(rpc, "eth_estimateGas", [{"from": EWOQ.address, "to": caller.address,
                                           "data": caller.functions.setEnabled(TX_ALLOW_LIST, C.address)
                                           ._encode_transaction_data()}])
        transact(w3, EWOQ, al.functions.setAdmin(caller.address))
        rc = transact(w3, EWOQ, caller.functions.setEnabled(TX_ALLOW_LIST, C.address))
        assert role_set(al, rc) == [(ENABLED, C.address, caller.address, NONE)]

        # block building refuses a pooled tx whose sender lost its role in an earlier tx
        call(rpc, "evm_setAutomine", [False])
        a_nonce = w3.eth.get_transaction_count(A.address)
        revoke = A.sign_transaction(tx_dict(w3, A, "0x" + "77" * 20, value=1, gas=21000)).raw_transaction
        demote = EWOQ.sign_transaction(tx_dict(w3, EWOQ, TX_ALLOW_LIST, al.functions.setNone(A.address)
                                               ._encode_transaction_data(), tip=10 * GWEI)).raw_transaction
        dropped = w3.eth.send_raw_transaction(revoke)
        kept = w3.eth.send_raw_transaction(demote)
        call(rpc, "evm_mine")
        assert w3.eth.get_transaction_receipt(kept).status == 1
        assert call(rpc, "eth_getTransactionByHash", [dropped.to_0x_hex()]) is None
        assert w3.eth.get_transaction_count(A.address) == a_nonce and role(A) == NONE


# ----------------------------------------------------------------------------- deployer allow list


def test_contract_deployer_allow_list_checks_tx_origin():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        rpc, w3 = start_l1(h, contractDeployerAllowListConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address],
                                                               "enabledAddresses": [A.address]})
        al = w3.eth.contract(address=DEPLOYER_ALLOW_LIST, abi=ABIS["IAllowList"])
        assert w3.eth.get_code(DEPLOYER_ALLOW_LIST) == b"\x01"

        # a top-level CREATE from an origin without a role: estimate says why; the tx fails using
        # all its gas, after the nonce moved; no contract
        with pytest.raises(RPCFailure, match=f"^tx.origin {B.address} is not authorized to deploy a contract$"):
            call(rpc, "eth_estimateGas", [{"from": B.address, "data": CALLER["bytecode"]}])
        rc = send(w3, B, None, CALLER["bytecode"], gas=900_000)
        assert rc.status == 0 and rc.gasUsed == 900_000 and w3.eth.get_code(rc.contractAddress) == b""
        assert w3.eth.get_transaction_count(B.address) == 1

        # Enabled deploys; CREATE and CREATE2 from the contract follow the tx's origin, not the contract
        caller = deploy_caller(w3, A)
        salt = b"\x05" * 32

        def created(acct, create2: bool) -> str:
            rc = transact(w3, acct, caller.functions.create(create2, salt), gas=500_000)
            assert rc.status == 1
            return caller.events.Created().process_receipt(rc)[0].args.created

        assert created(B, False) == ZERO and created(B, True) == ZERO
        first = created(EWOQ, False)
        assert first != ZERO and w3.eth.get_code(first) != b""
        second = created(A, True)
        assert second not in (ZERO, first) and w3.eth.get_code(second) != b""
        assert created(EWOQ, True) == ZERO  # the same CREATE2 address again: a collision

        # roles change who may deploy
        rc = transact(w3, EWOQ, al.functions.setEnabled(B.address))
        assert role_set(al, rc) == [(ENABLED, B.address, EWOQ.address, NONE)]
        assert created(B, False) != ZERO
        assert send(w3, B, None, CALLER["bytecode"], gas=2_000_000).status == 1
        transact(w3, EWOQ, al.functions.setNone(B.address))
        assert created(B, False) == ZERO
        assert call_error(rpc, A, DEPLOYER_ALLOW_LIST, al.functions.setEnabled(C.address)._encode_transaction_data()) \
            == f"cannot modify allow list: modify address: {A.address}, from role: NoRole, to role: EnabledRole"


# ----------------------------------------------------------------------------- native minter


def test_native_minter_mints_with_events_gas_and_errors():
    z, y = to_checksum_address("0x" + "5a" * 20), to_checksum_address("0x" + "59" * 20)
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        g = json.loads(genesis(contractNativeMinterConfig={
            "blockTimestamp": 0, "adminAddresses": [EWOQ.address], "enabledAddresses": [A.address],
            "initialMint": {z.lower(): "0x3e8", y: 5000}}))
        g["alloc"][z[2:].lower()] = {"balance": "0x1"}
        _, chain_id = create_l1(h, json.dumps(g).encode())
        rpc = h.url + f"/ext/bc/{id_to_str(chain_id)}/rpc"
        w3 = l1_web3(rpc)
        minter = w3.eth.contract(address=NATIVE_MINTER, abi=ABIS["INativeMinter"])
        # at genesis the precompiles activate before the alloc is written (core.Genesis.toBlock):
        # an alloc entry's SetBalance replaces what initialMint added
        assert w3.eth.get_balance(z, 0) == 1 and w3.eth.get_balance(y, 0) == 5000
        assert minter.functions.readAllowList(A.address).call() == ENABLED

        r = to_checksum_address("0x" + "72" * 20)
        for acct, amount in ((EWOQ, 5), (A, 10**30)):
            fn = minter.functions.mintNativeCoin(r, amount)
            rc = transact(w3, acct, fn)
            assert rc.status == 1 and rc.gasUsed == direct_gas(fn, 30_000 + 1_756)
            ev = minter.events.NativeCoinMinted().process_receipt(rc)
            assert [(e.args.sender, e.args.recipient, e.args.amount) for e in ev] == \
                [(acct.address, r, amount)]
            assert rc.logs[0].topics[0].to_0x_hex() == \
                "0x400cd392f3d56fd10bb1dbd5839fdda8298208ddaa97b368faa053e1850930ee"
        assert w3.eth.get_balance(r) == 5 + 10**30

        mint_b = minter.functions.mintNativeCoin(r, 1)._encode_transaction_data()
        assert call_error(rpc, B, NATIVE_MINTER, mint_b) == f"non-enabled cannot mint: {B.address}"
        rc = send(w3, B, NATIVE_MINTER, mint_b, gas=80_000)
        assert rc.status == 0 and rc.gasUsed == 80_000 and w3.eth.get_balance(r) == 5 + 10**30
        assert call_error(rpc, EWOQ, NATIVE_MINTER, mint_b[:10]) == \
            "failed to unpack input: abi: attempting to unmarshal an empty string while arguments are expected"
        assert call_error(rpc, EWOQ, NATIVE_MINTER, mint_b[:90]) == \
            "failed to unpack input: abi: cannot marshal in to go type: length insufficient 40 require 64"
        # out of gas inside the precompile: all the gas, as geth's DeductGas
        rc = send(w3, EWOQ, NATIVE_MINTER, mint_b, gas=21_000 + calldata_gas(mint_b) + 29_999)
        assert rc.status == 0 and w3.eth.get_balance(r) == 5 + 10**30
        with pytest.raises(RPCFailure, match="out of gas"):
            call(rpc, "eth_call", [{"from": EWOQ.address, "to": NATIVE_MINTER, "data": mint_b,
                                    "gas": hex(21_000 + calldata_gas(mint_b) + 31_000)}])

        # from a contract: through the interface once it has a role; never in a static call;
        # a DELEGATECALL reverts; value sent along stays at the precompile's address
        caller = deploy_caller(w3, EWOQ)
        with pytest.raises(RPCFailure, match="^execution reverted$"):
            call(rpc, "eth_estimateGas", [{"from": EWOQ.address, "to": caller.address, "data": caller.functions
                                           .mint(NATIVE_MINTER, r, 7)._encode_transaction_data()}])
        transact(w3, EWOQ, minter.functions.setEnabled(caller.address))
        rc = transact(w3, B, caller.functions.mint(NATIVE_MINTER, r, 7))
        ev = minter.events.NativeCoinMinted().process_receipt(rc)
        assert [(e.args.sender, e.args.amount) for e in ev] == [(caller.address, 7)]
        assert w3.eth.get_balance(r) == 12 + 10**30
        rc = transact(w3, EWOQ, caller.functions.staticcallRaw(NATIVE_MINTER, mint_b))
        assert results(caller, rc) == [(False, b"")] and w3.eth.get_balance(r) == 12 + 10**30
        rc = transact(w3, EWOQ, caller.functions.delegatecallRaw(NATIVE_MINTER, mint_b))
        assert results(caller, rc) == [(False, b"")] and w3.eth.get_balance(r) == 12 + 10**30
        read = minter.functions.readAllowList(EWOQ.address)._encode_transaction_data()
        rc = transact(w3, EWOQ, caller.functions.callRaw(NATIVE_MINTER, read), value=123)
        assert results(caller, rc) == [(True, (ADMIN).to_bytes(32, "big"))]
        assert w3.eth.get_balance(NATIVE_MINTER) == 123


# ----------------------------------------------------------------------------- fee manager


def test_fee_manager_changes_fees_from_the_next_block():
    new = {"gasLimit": 15_000_000, "targetBlockRate": 3, "minBaseFee": 30 * GWEI, "targetGas": 50_000_000,
           "baseFeeChangeDenominator": 48, "minBlockGasCost": 1, "maxBlockGasCost": 2_000_000,
           "blockGasCostStep": 100_000}
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        rpc, w3 = start_l1(h, feeManagerConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
        fm = w3.eth.contract(address=FEE_MANAGER, abi=ABIS["IFeeManager"])
        # activation stores the genesis feeConfig, changed "at" block 0
        assert call(rpc, "eth_feeConfig") == {"feeConfig": FEE_CONFIG, "lastChangedAt": 0}
        assert fm.functions.getFeeConfig().call() == list(FEE_CONFIG.values())
        assert fm.functions.getFeeConfigLastChangedAt().call() == 0
        assert int.from_bytes(w3.eth.get_storage_at(FEE_MANAGER, 1 << 248), "big") == FEE_CONFIG["gasLimit"]
        rc = transact(w3, A, fm.functions.getFeeConfig())
        assert rc.gasUsed == direct_gas(fm.functions.getFeeConfig(), 40_000)
        rc = transact(w3, A, fm.functions.getFeeConfigLastChangedAt())
        assert rc.gasUsed == direct_gas(fm.functions.getFeeConfigLastChangedAt(), 5_000)

        fn = fm.functions.setFeeConfig(*new.values())
        assert call_error(rpc, B, FEE_MANAGER, fn._encode_transaction_data()) == \
            f"non-enabled cannot change fee config: {B.address}"
        rc = transact(w3, EWOQ, fn)
        assert rc.status == 1 and rc.gasUsed == direct_gas(fn, 180_000 + 45_221)
        ev = fm.events.FeeConfigChanged().process_receipt(rc)
        assert [(e.args.sender, list(e.args.oldFeeConfig.values()), list(e.args.newFeeConfig.values()))
                for e in ev] == [(EWOQ.address, list(FEE_CONFIG.values()), list(new.values()))]
        assert rc.logs[0].topics[0].to_0x_hex() == "0x4c98e43adb5962c18f3f0e6dd066e2a2de258d3b4f695b317b77c8f27cd044fc"
        n = rc.blockNumber
        # the block that changed it keeps the old limit; its child follows the new config
        assert w3.eth.get_block(n).gasLimit == FEE_CONFIG["gasLimit"]
        assert call(rpc, "eth_feeConfig") == {"feeConfig": new, "lastChangedAt": n}
        assert call(rpc, "eth_feeConfig", [hex(n - 1)]) == {"feeConfig": FEE_CONFIG, "lastChangedAt": 0}
        assert fm.functions.getFeeConfigLastChangedAt().call() == n
        assert int(call(rpc, "eth_baseFee"), 16) >= 30 * GWEI
        rc = send(w3, A, "0x" + "77" * 20, value=1, gas=21000)
        blk = w3.eth.get_block(rc.blockNumber)
        assert blk.gasLimit == 15_000_000 and blk.baseFeePerGas == 30 * GWEI
        assert call(rpc, "eth_getChainConfig")["feeConfig"] == FEE_CONFIG  # the genesis config, as subnet-evm

        # subnet-evm's FeeConfig checks, after the role check
        bad = {**new, "gasLimit": 0}
        assert call_error(rpc, EWOQ, FEE_MANAGER, fm.functions.setFeeConfig(*bad.values())
                          ._encode_transaction_data()) == \
            "cannot verify fee config: gasLimit cannot be less than or equal to 0: gasLimit = 0"
        bad = {**new, "minBlockGasCost": 3, "maxBlockGasCost": 2}
        assert call_error(rpc, EWOQ, FEE_MANAGER, fm.functions.setFeeConfig(*bad.values())
                          ._encode_transaction_data()) == \
            "cannot verify fee config: minBlockGasCost cannot be greater than maxBlockGasCost: " \
            "minBlockGasCost = 3, maxBlockGasCost = 2"
        assert call_error(rpc, EWOQ, FEE_MANAGER, fn._encode_transaction_data()[:74]) == \
            "failed to unpack input: abi: cannot marshal in to go type: length insufficient 32 require 64"
        caller = deploy_caller(w3, EWOQ)
        rc = transact(w3, EWOQ, caller.functions.staticcallRaw(FEE_MANAGER, fn._encode_transaction_data()))
        assert results(caller, rc) == [(False, b"")] and fm.functions.getFeeConfigLastChangedAt().call() == n


# ----------------------------------------------------------------------------- reward manager


def test_reward_manager_steers_the_coinbase():
    r = to_checksum_address("0x" + "72" * 20)
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        rpc, w3 = start_l1(h, rewardManagerConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
        rm = w3.eth.contract(address=REWARD_MANAGER, abi=ABIS["IRewardManager"])
        # no initial config, fee recipients not allowed in the genesis: rewards disabled (blackhole)
        assert rm.functions.currentRewardAddress().call() == BLACKHOLE
        assert rm.functions.areFeeRecipientsAllowed().call() is False
        fn = rm.functions.currentRewardAddress()
        assert transact(w3, A, fn).gasUsed == direct_gas(fn, 5_000)

        fn = rm.functions.setRewardAddress(r)
        assert call_error(rpc, B, REWARD_MANAGER, fn._encode_transaction_data()) == \
            f"non-enabled cannot call setRewardAddress: {B.address}"
        rc = transact(w3, EWOQ, fn)
        assert rc.gasUsed == direct_gas(fn, 25_000 + 6_875)
        ev = rm.events.RewardAddressChanged().process_receipt(rc)
        assert [(e.args.sender, e.args.oldRewardAddress, e.args.newRewardAddress) for e in ev] == \
            [(EWOQ.address, BLACKHOLE, r)]
        assert w3.eth.get_block(rc.blockNumber).miner == BLACKHOLE  # from the next block on
        rc = send(w3, A, "0x" + "77" * 20, value=1, gas=21000)
        assert w3.eth.get_block(rc.blockNumber).miner == r
        assert w3.eth.get_balance(r) == rc.gasUsed * rc.effectiveGasPrice  # the whole fee, base fee included

        fn = rm.functions.allowFeeRecipients()
        assert call_error(rpc, B, REWARD_MANAGER, fn._encode_transaction_data()) == \
            f"non-enabled cannot call allowFeeRecipients: {B.address}"
        rc = transact(w3, EWOQ, fn)
        assert rc.gasUsed == direct_gas(fn, 25_000 + 1_125)
        assert [e.args.sender for e in rm.events.FeeRecipientsAllowed().process_receipt(rc)] == [EWOQ.address]
        assert rm.functions.areFeeRecipientsAllowed().call() is True
        assert rm.functions.currentRewardAddress().call() == ZERO
        rc = send(w3, A, "0x" + "77" * 20, value=1, gas=21000)
        assert w3.eth.get_block(rc.blockNumber).miner == BLACKHOLE  # no feeRecipient configured: the blackhole

        fn = rm.functions.disableRewards()
        assert call_error(rpc, B, REWARD_MANAGER, fn._encode_transaction_data()) == \
            f"non-enabled cannot call disableRewards: {B.address}"
        rc = transact(w3, EWOQ, fn)
        assert rc.gasUsed == direct_gas(fn, 25_000 + 1_125)
        assert [e.args.sender for e in rm.events.RewardsDisabled().process_receipt(rc)] == [EWOQ.address]
        assert rm.functions.currentRewardAddress().call() == BLACKHOLE
        assert rm.functions.areFeeRecipientsAllowed().call() is False
        assert call_error(rpc, EWOQ, REWARD_MANAGER, rm.functions.setRewardAddress(ZERO)
                          ._encode_transaction_data()) == "reward address cannot be empty"
        caller = deploy_caller(w3, EWOQ)
        rc = transact(w3, EWOQ, caller.functions.staticcallRaw(REWARD_MANAGER, fn._encode_transaction_data()))
        assert results(caller, rc) == [(False, b"")]

        # an initial reward address rules from block 1; both at once is refused
        rpc2, w3b = start_l1(h, rewardManagerConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address],
                                                     "initialRewardConfig": {"rewardAddress": r}})
        rc = send(w3b, A, "0x" + "77" * 20, value=1, gas=21000)
        assert rc.blockNumber == 1 and w3b.eth.get_block(1).miner == r
        _, bad = create_l1(h, genesis(rewardManagerConfig={
            "blockTimestamp": 0, "initialRewardConfig": {"allowFeeRecipients": True, "rewardAddress": r}}))
        assert h.node.chain_manager.failed[bad] == \
            "failed to verify genesis: invalid precompile upgrades: cannot enable both fee recipients and reward " \
            "address at the same time"


# ----------------------------------------------------------------------------- activation and upgrades


def advance(h, seconds: int) -> int:
    return int(call(h.url + "/ext/simnode", "simnode.advanceTime", {"seconds": seconds})["timestamp"])


def test_activation_by_timestamp_upgrades_and_their_compatibility(tmp_path):
    chains = tmp_path / "chains"
    chains.mkdir()
    config = NodeConfig(http_port=0, data_dir=tmp_path / "data", clock_mode="virtual", chain_config_dir=chains)
    recipient = to_checksum_address("0x" + "fe" * 20)
    r = to_checksum_address("0x" + "72" * 20)
    with Node.start_in_thread(config) as h:
        t0 = advance(h, 0)
        rpc, w3 = start_l1(h, contractNativeMinterConfig={"blockTimestamp": t0 + 100,
                                                          "adminAddresses": [EWOQ.address]},
                           rewardManagerConfig={"blockTimestamp": 0, "initialRewardConfig": {"allowFeeRecipients": True}})
        minter = w3.eth.contract(address=NATIVE_MINTER, abi=ABIS["INativeMinter"])
        mint = minter.functions.mintNativeCoin(r, 5)
        cid = rpc.split("/")[-2]

        # before its timestamp the minter is not there: a call to it is a call to an empty account
        assert call(rpc, "eth_getActiveRulesAt")["precompiles"] == {"rewardManagerConfig": {"timestamp": 0}}
        assert call(rpc, "eth_getActiveRulesAt", [t0 + 100])["precompiles"] == {
            "contractNativeMinterConfig": {"timestamp": t0 + 100}, "rewardManagerConfig": {"timestamp": 0}}
        assert list(call(rpc, "eth_getActivePrecompilesAt", [t0 + 99])) == ["rewardManagerConfig"]
        rc = transact(w3, EWOQ, mint)
        assert rc.status == 1 and not rc.logs and w3.eth.get_code(NATIVE_MINTER) == b""
        assert w3.eth.get_block(rc.blockNumber).miner == BLACKHOLE  # fee recipients allowed, none configured

        # the first block at or after it activates it, before that block's txs
        advance(h, 100)
        rc = transact(w3, EWOQ, mint)
        assert rc.status == 1 and len(rc.logs) == 1 and w3.eth.get_balance(r) == 5
        assert w3.eth.get_block(rc.blockNumber).timestamp >= t0 + 100
        assert w3.eth.get_code(NATIVE_MINTER, rc.blockNumber) == b"\x01"
        assert w3.eth.get_code(NATIVE_MINTER, rc.blockNumber - 1) == b""
        assert w3.eth.get_transaction_count(NATIVE_MINTER) == 1
        assert minter.functions.readAllowList(EWOQ.address).call() == ADMIN
        t1 = w3.eth.get_block("latest").timestamp

    # upgrade.json: disable the minter and enable the tx allow list at t2; config.json: a fee recipient
    t2 = t1 + 50
    upgrades = [{"contractNativeMinterConfig": {"blockTimestamp": t2, "disable": True}},
                {"txAllowListConfig": {"blockTimestamp": t2, "adminAddresses": [EWOQ.address.lower()]}}]
    (chains / cid).mkdir()
    (chains / cid / "upgrade.json").write_text(json.dumps({"precompileUpgrades": upgrades}))
    (chains / cid / "config.json").write_text(json.dumps({"feeRecipient": recipient}))
    config = config.with_(start_time_ms=t1 * 1000)
    with Node.start_in_thread(config) as h:
        assert call(rpc := h.url + f"/ext/bc/{cid}/rpc", "eth_getChainConfig")["upgrades"] == \
            {"precompileUpgrades": upgrades}
        w3 = l1_web3(rpc)
        rc = transact(w3, EWOQ, mint)
        assert len(rc.logs) == 1 and w3.eth.get_block(rc.blockNumber).miner == recipient
        assert w3.eth.get_balance(recipient) == rc.gasUsed * rc.effectiveGasPrice
        advance(h, t2 - t1)
        rc = transact(w3, EWOQ, mint)  # the block at t2: the minter's account is wiped first
        assert rc.status == 1 and not rc.logs and w3.eth.get_balance(r) == 10
        assert w3.eth.get_code(NATIVE_MINTER) == b"" and w3.eth.get_transaction_count(NATIVE_MINTER) == 0
        assert w3.eth.get_storage_at(NATIVE_MINTER, int(EWOQ.address, 16)) == b"\x00" * 32
        assert sorted(call(rpc, "eth_getActivePrecompilesAt")) == ["rewardManagerConfig", "txAllowListConfig"]
        assert "contractNativeMinterConfig" in call(rpc, "eth_getActiveRulesAt", [t2 - 1])["precompiles"]
        with pytest.raises(RPCFailure, match="cannot issue transaction from non-allow listed address"):
            call(rpc, "eth_sendRawTransaction", [B.sign_transaction(tx_dict(w3, B, r, value=1, gas=21000))
                                                 .raw_transaction.to_0x_hex()])
        t3 = advance(h, 1)

    # an upgrade.json that drops an activation already passed: the chain does not start
    (chains / cid / "upgrade.json").write_text(json.dumps({"precompileUpgrades": upgrades[1:]}))
    with Node.start_in_thread(config.with_(start_time_ms=t3 * 1000)) as h:
        failed = {id_to_str(k): v for k, v in h.node.chain_manager.failed.items()}
        assert failed == {cid: f"mismatching missing PrecompileUpgrade[1] in database (have timestamp {t2}, "
                               f"want timestamp nil, rewindto timestamp {t2 - 1})"}

    # one that only adds a later upgrade is fine: the minter comes back with new roles and no old ones
    t4 = t3 + 10
    upgrades.append({"contractNativeMinterConfig": {"blockTimestamp": t4, "adminAddresses": [A.address.lower()]}})
    (chains / cid / "upgrade.json").write_text(json.dumps({"precompileUpgrades": upgrades}))
    with Node.start_in_thread(config.with_(start_time_ms=t3 * 1000)) as h:
        rpc = h.url + f"/ext/bc/{cid}/rpc"
        w3 = l1_web3(rpc)
        assert len(call(rpc, "eth_getChainConfig")["upgrades"]["precompileUpgrades"]) == 3
        advance(h, t4 - t3)
        assert send(w3, EWOQ, r, value=1, gas=21000).status == 1  # the block at t4
        minter = w3.eth.contract(address=NATIVE_MINTER, abi=ABIS["INativeMinter"])
        assert w3.eth.get_code(NATIVE_MINTER) == b"\x01"
        assert (minter.functions.readAllowList(A.address).call(), minter.functions.readAllowList(EWOQ.address)
                .call()) == (ADMIN, NONE)
        assert call_error(rpc, EWOQ, NATIVE_MINTER, mint._encode_transaction_data()) == \
            f"non-enabled cannot mint: {EWOQ.address}"


def _scripted_run() -> list[tuple[str, str, str]]:
    """A fresh node through activations (one in an anvil_mine run of empty blocks), precompile
    calls and fee changes; every L1 block's (hash, state root, miner)."""
    r = to_checksum_address("0x" + "72" * 20)
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as h:
        t0 = advance(h, 0)
        rpc, w3 = start_l1(
            h, contractNativeMinterConfig={"blockTimestamp": t0 + 30, "adminAddresses": [EWOQ.address]},
            feeManagerConfig={"blockTimestamp": t0 + 60, "enabledAddresses": [A.address],
                              "initialFeeConfig": {**FEE_CONFIG, "gasLimit": 20_000_000}},
            rewardManagerConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address],
                                 "initialRewardConfig": {"rewardAddress": r}},
            txAllowListConfig={"blockTimestamp": 0, "enabledAddresses": [EWOQ.address, A.address]},
            contractDeployerAllowListConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
        assert send(w3, EWOQ, r, value=3, gas=21000).status == 1
        head = w3.eth.get_block("latest")
        call(rpc, "anvil_mine", [hex(5), hex(10)])  # empty blocks 10 s apart: one of them crosses t0 + 30
        roots = {n: w3.eth.get_block(n).stateRoot for n in range(head.number, head.number + 6)}
        crossing = [n for n in range(head.number + 1, head.number + 6) if roots[n] != roots[n - 1]]
        assert len(crossing) == 1 and w3.eth.get_code(NATIVE_MINTER, crossing[0]) == b"\x01"
        assert w3.eth.get_block(crossing[0]).timestamp >= t0 + 30 > w3.eth.get_block(crossing[0] - 1).timestamp
        minter = w3.eth.contract(address=NATIVE_MINTER, abi=ABIS["INativeMinter"])
        assert len(transact(w3, EWOQ, minter.functions.mintNativeCoin(A.address, 10**18)).logs) == 1
        deploy_caller(w3, EWOQ)
        advance(h, 60)
        fm = w3.eth.contract(address=FEE_MANAGER, abi=ABIS["IFeeManager"])
        assert transact(w3, A, fm.functions.setFeeConfig(*{**FEE_CONFIG, "minBaseFee": 40 * GWEI}.values())).status
        assert w3.eth.get_block(send(w3, A, r, value=1, gas=21000).blockNumber).baseFeePerGas == 40 * GWEI
        latest = w3.eth.block_number
        return [(b.hash.to_0x_hex(), b.stateRoot.to_0x_hex(), b.miner)
                for b in (w3.eth.get_block(n) for n in range(latest + 1))]


def test_replay_gives_the_same_blocks_and_state_roots():
    first = _scripted_run()
    assert first == _scripted_run()
    assert {miner for _, _, miner in first[1:]} == {to_checksum_address("0x" + "72" * 20)}
