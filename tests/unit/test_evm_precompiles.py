"""The stateful-precompile framework (simnode/vms/evm/precompiles) without HTTP: selectors, event
topics and gas against subnet-evm's values, the allow-list role rules, config parsing and
verification (hypothesis round trips), the schedule of activations, upgrade compatibility, how
py-evm runs a precompile (static calls, DELEGATECALL, value, errors, gas), and an L1 engine with
precompiles: genesis activation equal to a block's, empty blocks that activate, the transfer
fast path beside precompiles, and tracing re-executing what the builder did; the C-Chain's
coreth warp account beside its empty schedule."""

from __future__ import annotations

import copy
import json

import pytest
from eth.exceptions import OutOfGas, Revert, WriteProtection
from eth.vm.message import Message
from eth.vm.spoof import SpoofTransaction
from eth_account import Account
from eth_utils import to_checksum_address
from hypothesis import given, settings
from hypothesis import strategies as st

from simnode.clock import VirtualClock
from simnode.config import NodeConfig, read_chain_config_files
from simnode.crypto.hashing import keccak256
from simnode.genesis import load_network_genesis
from simnode.store import Store
from simnode.vms.chain_context import ChainContext
from simnode.vms.evm.tracing import block_frames
from simnode.vms.evm import transfer
from simnode.vms.evm.evm_chain import EVMChain
from simnode.vms.evm.headers import evm_header
from simnode.vms.evm.vmerrors import ChainError
from simnode.vms.evm.precompiles.warp import ADDRESS as WARP_ADDRESS
from simnode.vms.evm.headers import HeaderRules
from simnode.vms.evm.precompiles import (allowlist, deployerallowlist, feemanager, nativeminter, rewardmanager,
                                         txallowlist)
from simnode.vms.evm.precompiles.contract import ConfigError, PrecompileError, abi_words, selector
from simnode.vms.evm.precompiles.registry import BY_KEY, MODULES
from simnode.vms.evm.precompiles.schedule import Schedule
from simnode.vms.evm.precompiles.upgrades import (check_compatible, genesis_configs, parse_config,
                                                  parse_upgrade_bytes)
from simnode.vms.evm.fork_vms import vm_before_granite
from simnode.vms.evm.rules import AvalancheVM, CorethVM, SubnetEVMVM
from simnode.vms.evm.service import EthAPI
from simnode.vms.evm.subnet import GenesisError, SubnetEVMChain
from simnode.vms.evm.tracing.debug_trace import trace_block

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_ADDR = bytes.fromhex(EWOQ.address[2:])
OTHER = Account.from_key(b"\x07" * 32)
OTHER_ADDR = bytes.fromhex(OTHER.address[2:])
START_MS = 1_767_225_600_000
NETWORK = load_network_genesis(12345)
GENESIS = {"config": {"chainId": 99999, "feeConfig": {
    "gasLimit": 12_000_000, "targetBlockRate": 2, "minBaseFee": 25 * 10**9, "targetGas": 60_000_000,
    "baseFeeChangeDenominator": 36, "minBlockGasCost": 0, "maxBlockGasCost": 1_000_000, "blockGasCostStep": 200_000}},
    "alloc": {EWOQ.address[2:]: {"balance": hex(10**24)}, OTHER.address[2:]: {"balance": hex(10**24)}},
    "gasLimit": hex(12_000_000), "timestamp": "0x0"}


def l1(store: Store | None = None, clock: VirtualClock | None = None, upgrades: bytes | None = None,
       tmp_path=None, **precompiles: dict) -> SubnetEVMChain:
    g = copy.deepcopy(GENESIS)
    g["config"].update(precompiles)
    config = NodeConfig()
    if upgrades is not None:
        (tmp_path / "11111111111111111111111111111111LpoYY").mkdir(exist_ok=True)
        (tmp_path / "11111111111111111111111111111111LpoYY" / "upgrade.json").write_bytes(upgrades)
        config = NodeConfig(chain_config_dir=tmp_path)
    ctx = ChainContext(config, NETWORK, store or Store.memory(), clock or VirtualClock(START_MS), bytes(32))
    chain = SubnetEVMChain(ctx, genesis_data=json.dumps(g).encode(), name="t", subnet_id=b"\x01" * 32)
    chain.automine = False
    return chain


def signed(acct, chain, to: bytes | None, data: bytes = b"", value: int = 0, gas: int = 200_000,
           nonce: int | None = None) -> bytes:
    tx = {"chainId": 99999, "nonce": chain.pending_nonce(bytes.fromhex(acct.address[2:])) if nonce is None else nonce,
          "value": value, "data": data, "gas": gas, "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9}
    if to is not None:
        tx["to"] = to_checksum_address(to)
    return bytes(acct.sign_transaction(tx).raw_transaction)


def words(*values: int) -> bytes:
    return b"".join(v.to_bytes(32, "big") for v in values)


def addr_word(a: bytes) -> int:
    return int.from_bytes(a, "big")


# ----------------------------------------------------------------------------- known answers


def test_selectors_topics_and_gas_are_subnet_evms():
    assert {name: selector(f"{name}(address)").hex() for name in allowlist.SETTERS} == {
        "setAdmin": "704b6c02", "setEnabled": "0aaf7043", "setManager": "d0ebdbe7", "setNone": "8c6bfb3b"}
    assert selector("readAllowList(address)").hex() == "eb54dae1"
    assert selector("mintNativeCoin(address,uint256)").hex() == "4f5aaaba"
    assert selector("setFeeConfig(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)").hex() == "8f10b586"
    assert selector("getFeeConfig()").hex() == "5fbbc0d2"
    assert selector("getFeeConfigLastChangedAt()").hex() == "9e05549a"
    assert [selector(s).hex() for s in ("setRewardAddress(address)", "allowFeeRecipients()", "disableRewards()",
                                        "currentRewardAddress()", "areFeeRecipientsAllowed()")] == \
        ["5e00e679", "0329099f", "bc178628", "e915608b", "f6542b2e"]
    topics = {
        allowlist.ROLE_SET: "cdb7ea01f00a414d78757bdb0f6391664ba3fedf987eed280927c1e7d695be3e",
        nativeminter.NATIVE_COIN_MINTED: "400cd392f3d56fd10bb1dbd5839fdda8298208ddaa97b368faa053e1850930ee",
        feemanager.FEE_CONFIG_CHANGED: "4c98e43adb5962c18f3f0e6dd066e2a2de258d3b4f695b317b77c8f27cd044fc",
        rewardmanager.REWARD_ADDRESS_CHANGED: "c2a9e07cba6f4920acaa5933bd0406949d5dbef7ee698e786ea23e8708f32a6c",
        rewardmanager.FEE_RECIPIENTS_ALLOWED: "abb1949bd129fef9b84601a48aee89d600d90074ca10216a02ce43996be55991",
        rewardmanager.REWARDS_DISABLED: "eb121f0335efe8f4b8ebef7793c18c171834696989656a8c345acc558359fabf",
    }
    assert {t.to_bytes(32, "big").hex(): v for t, v in topics.items()} == {v: v for v in topics.values()}
    assert (allowlist.MODIFY_GAS, allowlist.READ_GAS, allowlist.ROLE_SET_EVENT_GAS) == (20_000, 5_000, 2_131)
    assert (nativeminter.MINT_GAS, nativeminter.MINTED_EVENT_GAS) == (30_000, 1_756)
    assert (feemanager.SET_GAS, feemanager.GET_GAS, feemanager.LAST_CHANGED_GAS, feemanager.CHANGED_EVENT_GAS) == \
        (180_000, 40_000, 5_000, 45_221)
    assert (rewardmanager.WRITE_GAS, rewardmanager.READ_GAS, rewardmanager.SENDER_EVENT_GAS,
            rewardmanager.ADDRESS_CHANGED_EVENT_GAS) == (25_000, 5_000, 1_125, 6_875)
    assert [(m.key, m.address.hex()) for m in MODULES] == [
        ("contractDeployerAllowListConfig", "02" + "00" * 19), ("contractNativeMinterConfig", "02" + "00" * 18 + "01"),
        ("txAllowListConfig", "02" + "00" * 18 + "02"), ("feeManagerConfig", "02" + "00" * 18 + "03"),
        ("rewardManagerConfig", "02" + "00" * 18 + "04"), ("warpConfig", "02" + "00" * 18 + "05")]
    # storage keys: common.Hash{byte(i)} and the ASCII keys
    assert feemanager.field_key(1) == int("01" + "00" * 31, 16)
    assert feemanager.LAST_CHANGED_KEY == int("6c6361" + "00" * 29, 16)
    assert rewardmanager.REWARD_KEY == int("7261736b" + "00" * 28, 16)
    assert rewardmanager.ALLOW_FEE_RECIPIENTS == int("6166726176" + "00" * 27, 16)


def test_role_rules():
    def expected(caller: int, old: int, new: int) -> bool:  # subnet-evm's Role.CanModify
        if caller == allowlist.ADMIN:
            return True
        return caller == allowlist.MANAGER and old in (0, 1) and new in (0, 1)
    for caller in range(5):
        for old in range(5):
            for new in range(4):
                assert allowlist.can_modify(caller, old, new) == expected(caller, old, new)
    assert [allowlist.is_enabled(r) for r in range(5)] == [False, True, True, True, False]
    assert [allowlist.role_name(r) for r in range(5)] == ["NoRole", "EnabledRole", "AdminRole", "ManagerRole",
                                                          "UnknownRole"]


def test_abi_words_decode_as_go_ethereum():
    assert abi_words(words(1, 2) + b"\x09", 2) == [1, 2]  # trailing bytes are fine after Durango
    with pytest.raises(PrecompileError, match="^abi: attempting to unmarshal an empty string while arguments"):
        abi_words(b"", 1)
    with pytest.raises(PrecompileError, match="^p: abi: cannot marshal in to go type: length insufficient 40 "
                                              "require 64$"):
        abi_words(b"\x00" * 40, 2, "p: ")


# ----------------------------------------------------------------------------- configs


ADDRESSES = st.lists(st.binary(min_size=20, max_size=20), max_size=4, unique=True)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(MODULES), ADDRESSES, st.integers(0, 2**64 - 1), st.booleans(),
       st.lists(st.tuples(st.binary(min_size=20, max_size=20), st.integers(1, 2**256 - 1)), max_size=3))
def test_configs_round_trip_through_their_json(module, addresses, ts, disable, mint):
    third = len(addresses) // 3
    data = {"adminAddresses": ["0x" + a.hex() for a in addresses[:third]],
            "managerAddresses": ["0x" + a.hex() for a in addresses[third:2 * third]],
            "enabledAddresses": ["0x" + a.hex() for a in addresses[2 * third:]],
            "blockTimestamp": ts, "disable": disable}
    if module is nativeminter.MODULE:
        data["initialMint"] = {"0x" + a.hex(): hex(v) for a, v in dict(mint).items()}
    if module is feemanager.MODULE and mint:
        data["initialFeeConfig"] = {**GENESIS["config"]["feeConfig"], "gasLimit": mint[0][1] % 2**64 + 1}
    if module is rewardmanager.MODULE and mint:
        data["initialRewardConfig"] = {"allowFeeRecipients": False, "rewardAddress": "0x" + mint[0][0].hex()}
    config = parse_config(module, data)
    assert parse_config(module, json.loads(json.dumps(config.to_json()))) == config
    assert (config.timestamp, config.disable) == (ts, disable)


def test_config_verification_errors():
    a, b = "0x" + "aa" * 20, "0x" + "bb" * 20
    ca = to_checksum_address(a)
    cases = [
        ({"enabledAddresses": [a, a]}, f"duplicate address in enabled list: {ca}"),
        ({"adminAddresses": [a], "enabledAddresses": [a]}, f"cannot set address as both admin and enabled: {ca}"),
        ({"adminAddresses": [a, a]}, f"duplicate address in admin list: {ca}"),
        ({"adminAddresses": [a], "managerAddresses": [a]}, f"cannot set address as both admin and manager: {ca}"),
        ({"enabledAddresses": [a], "managerAddresses": [a]}, f"cannot set address as both enabled and manager: {ca}"),
        ({"managerAddresses": [b, b]}, f"duplicate address in manager list: {to_checksum_address(b)}"),
        ({"adminAddresses": ["aa" * 20]}, "without 0x prefix"),
        ({"adminAddresses": ["0x" + "aa" * 19]}, "hex string has length 38, want 40 for common.Address"),
        ({"blockTimestamp": -1}, "of type uint64"),
    ]
    for data, message in cases:
        with pytest.raises(ConfigError, match=message):
            parse_config(txallowlist.MODULE, data)
    with pytest.raises(ConfigError, match=f"^initial mint cannot contain invalid amount: amount 0 for address {ca}$"):
        parse_config(nativeminter.MODULE, {"initialMint": {a: "0"}})
    with pytest.raises(ConfigError, match="^cannot enable both fee recipients and reward address at the same time$"):
        parse_config(rewardmanager.MODULE, {"initialRewardConfig": {"allowFeeRecipients": True, "rewardAddress": a}})
    with pytest.raises(ConfigError, match="targetGas cannot be less than or equal to 0"):
        parse_config(feemanager.MODULE, {"initialFeeConfig": {**GENESIS["config"]["feeConfig"], "targetGas": 0}})


def up(*entries: dict) -> bytes:
    return json.dumps({"precompileUpgrades": list(entries)}).encode()


def test_upgrade_bytes_are_parsed_and_verified_as_subnet_evm_does():
    minter = lambda ts, **kw: {"contractNativeMinterConfig": {"blockTimestamp": ts, **kw}}  # noqa: E731
    bad = [
        (b"[", "failed to parse upgrade bytes"),
        (up({}), "PrecompileUpgrade cannot be empty"),
        (up({**minter(1), "txAllowListConfig": {}}), "PrecompileUpgrade must have exactly one key, got 2"),
        (up({"gasPriceManagerConfig": {"blockTimestamp": 1}}), "unknown precompile config: gasPriceManagerConfig"),
        (json.dumps({"stateUpgrades": [{"blockTimestamp": 1}]}).encode(), "stateUpgrades are not supported"),
    ]
    for data, message in bad:
        with pytest.raises(ConfigError, match=message):
            parse_upgrade_bytes(data)
    unverified = [
        (up(minter(None)), r"precompile upgrade block timestamp cannot be nil: PrecompileUpgrade "
                           r"\(contractNativeMinterConfig\) at \[0\]"),
        (up(minter(5), minter(4, disable=True)), "must be greater than or equal to previous timestamp"),
        (up(minter(5, disable=True)), "precompile upgrade disable value is invalid: PrecompileUpgrade "
                                      r"\(contractNativeMinterConfig\) at \[0\], disable should be false"),
        (up(minter(5), minter(6)), "disable should be true"),
        (up(minter(5), minter(5, disable=True)), "for same key must be strictly greater than previous timestamp"),
    ]
    for data, message in unverified:
        with pytest.raises(ConfigError, match=message):
            Schedule(SubnetEVMVM, (), parse_upgrade_bytes(data))
    # after a genesis config, an upgrade of the same key must disable it first
    genesis = genesis_configs({"contractNativeMinterConfig": {"blockTimestamp": 0}})
    with pytest.raises(ConfigError, match="disable should be true"):
        Schedule(SubnetEVMVM, genesis, parse_upgrade_bytes(up(minter(5))))


def test_schedule_answers_by_timestamp():
    genesis = genesis_configs({"contractNativeMinterConfig": {"blockTimestamp": 10}, "txAllowListConfig": {},
                               "feeManagerConfig": {"blockTimestamp": 0}})
    upgrades = parse_upgrade_bytes(up({"contractNativeMinterConfig": {"blockTimestamp": 20, "disable": True}},
                                      {"feeManagerConfig": {"blockTimestamp": 20, "disable": True}},
                                      {"contractNativeMinterConfig": {"blockTimestamp": 30}}))
    s = Schedule(SubnetEVMVM, genesis, upgrades)
    keys = lambda ts: [c.key for c in s.active(ts)]  # noqa: E731
    assert keys(0) == ["feeManagerConfig"]  # the tx allow list has no timestamp: never
    assert keys(10) == keys(19) == ["contractNativeMinterConfig", "feeManagerConfig"]
    assert keys(20) == keys(29) == []
    assert keys(30) == ["contractNativeMinterConfig"] and s.active(31)[0].timestamp == 30
    assert s.enabled(nativeminter.ADDRESS, 15) and not s.enabled(nativeminter.ADDRESS, 25)
    assert [c.key for c in s.activating(None, 0)] == ["feeManagerConfig"]
    assert [(c.key, c.disable) for c in s.activating(5, 20)] == [
        ("contractNativeMinterConfig", False), ("contractNativeMinterConfig", True), ("feeManagerConfig", True)]
    assert s.activating(10, 19) == () and s.activating(20, 29) == ()
    # one VM class per set of modules: the base itself for none, shared by equal sets
    assert s.vm_class_at(0) is not SubnetEVMVM and s.vm_class_at(25) is SubnetEVMVM
    assert s.vm_class_at(10) is s.vm_class_at(15) and s.vm_class_at(10) is not s.vm_class_at(30)
    assert issubclass(s.vm_class_at(10), SubnetEVMVM)
    empty = Schedule(AvalancheVM)
    assert empty.vm_class_at(123) is AvalancheVM and empty.activating(None, 10**9) == ()
    assert empty.check_tx(None, EWOQ_ADDR, 0) is None


def test_upgrade_compatibility_with_the_passed_activations():
    genesis = genesis_configs({"contractNativeMinterConfig": {"blockTimestamp": 0}})
    old = parse_upgrade_bytes(up({"contractNativeMinterConfig": {"blockTimestamp": 100, "disable": True}}))
    moved = parse_upgrade_bytes(up({"contractNativeMinterConfig": {"blockTimestamp": 120, "disable": True}}))
    later = parse_upgrade_bytes(up({"contractNativeMinterConfig": {"blockTimestamp": 100, "disable": True}},
                                   {"txAllowListConfig": {"blockTimestamp": 200}}))
    assert check_compatible(genesis, old, old, 150) is None
    assert check_compatible(genesis, old, moved, 99) is None  # not passed yet: free to move
    assert check_compatible(genesis, old, later, 150) is None  # a future upgrade may be added
    assert check_compatible(genesis, old, moved, 110) == \
        "mismatching missing PrecompileUpgrade[1] in database (have timestamp 100, want timestamp nil, " \
        "rewindto timestamp 99)"
    assert check_compatible(genesis, old, moved, 150) == \
        "mismatching PrecompileUpgrade[1] in database (have timestamp 100, want timestamp 120, rewindto timestamp 99)"
    assert check_compatible(genesis, old, later, 250) == \
        "mismatching cannot retroactively enable PrecompileUpgrade[0] in database (have timestamp nil, " \
        "want timestamp 200, rewindto timestamp 199)"
    assert check_compatible(genesis, (), old, 0) is None  # at timestamp 0 nothing needs a rewind


def test_chain_config_dir_files(tmp_path):
    assert read_chain_config_files(None, ["x"]).upgrade is None
    (tmp_path / "alias").mkdir()
    (tmp_path / "alias" / "upgrade.json").write_bytes(b"{}")
    (tmp_path / "alias" / "config.json").write_bytes(b'{"feeRecipient": "0x01"}')
    files = read_chain_config_files(tmp_path, ["id", "alias"])
    assert (files.config, files.upgrade) == (b'{"feeRecipient": "0x01"}', b"{}")
    (tmp_path / "alias" / "upgrade.txt").write_bytes(b"{}")
    with pytest.raises(ValueError, match=r'too many files matched "upgrade\.\*"'):
        read_chain_config_files(tmp_path, ["alias"])


# ----------------------------------------------------------------------------- running a precompile


def run(chain: SubnetEVMChain, address: bytes, data: bytes, *, sender: bytes = EWOQ_ADDR, gas: int = 100_000,
        value: int = 0, static: bool = False, code_address: bytes | None = None, edit=None):
    """A message straight to the precompile on the head's state, as py-evm applies a call."""
    state = chain.vm_at(evm_header(chain.head.header, state_root=chain.state_root)).state
    if edit is not None:
        edit(state)
    msg = Message(gas=gas, to=address, sender=sender, value=value, data=data, code=b"\x01", is_static=static,
                  code_address=code_address)
    ctx = state.get_transaction_context_class()(gas_price=0, origin=sender)
    comp = state.computation_class.apply_message(state, msg, ctx)
    return comp, state


def test_precompile_calls_in_py_evm():
    chain = l1(txAllowListConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
    set_enabled = selector("setEnabled(address)") + words(addr_word(OTHER_ADDR))
    # a stateful precompile is not warm from the tx's start (an Ethereum one is), as in subnet-evm
    fresh = chain.vm_at(evm_header(chain.head.header)).state
    assert not fresh.is_address_warm(txallowlist.ADDRESS) and fresh.is_address_warm(b"\x00" * 19 + b"\x01")
    comp, state = run(chain, txallowlist.ADDRESS, set_enabled)
    assert not comp.is_error and comp.output == b"" and comp.get_gas_remaining() == 100_000 - 22_131
    assert state.get_storage(txallowlist.ADDRESS, addr_word(OTHER_ADDR)) == allowlist.ENABLED
    [(address, topics, data)] = comp.get_log_entries()
    assert address == txallowlist.ADDRESS and data == words(0)
    assert list(topics) == [allowlist.ROLE_SET, 1, addr_word(OTHER_ADDR), addr_word(EWOQ_ADDR)]
    # a static call may read but not write
    comp, state = run(chain, txallowlist.ADDRESS, set_enabled, static=True)
    assert isinstance(comp.error, WriteProtection) and str(comp.error) == "write protection"
    assert comp.get_gas_remaining() == 0 and state.get_storage(txallowlist.ADDRESS, addr_word(OTHER_ADDR)) == 0
    read = selector("readAllowList(address)") + words(addr_word(EWOQ_ADDR))
    comp, _ = run(chain, txallowlist.ADDRESS, read, static=True)
    assert comp.output == words(allowlist.ADMIN) and comp.get_gas_remaining() == 95_000
    # DELEGATECALL / CALLCODE: the message runs the precompile's code for another account
    comp, _ = run(chain, b"\x33" * 20, read, code_address=txallowlist.ADDRESS)
    assert isinstance(comp.error, Revert) and comp.output == b"" and comp.get_gas_remaining() == 0
    # errors use all the gas and return nothing; out of gas as DeductGas
    comp, state = run(chain, txallowlist.ADDRESS, set_enabled, sender=OTHER_ADDR)
    assert isinstance(comp.error, PrecompileError) and comp.get_gas_remaining() == 0 and not comp.get_log_entries()
    comp, _ = run(chain, txallowlist.ADDRESS, set_enabled, gas=19_999)
    assert isinstance(comp.error, OutOfGas)
    comp, _ = run(chain, txallowlist.ADDRESS, set_enabled, gas=20_000 + 2_130)  # the event's gas is missing
    assert isinstance(comp.error, OutOfGas)
    # value stays at the precompile (and goes back on an error)
    comp, state = run(chain, txallowlist.ADDRESS, read, value=9, edit=lambda s: s.set_balance(EWOQ_ADDR, 10**18))
    assert not comp.is_error and state.get_balance(txallowlist.ADDRESS) == 9


@pytest.mark.parametrize("caller", range(4))
def test_every_role_transition(caller):
    chain = l1(txAllowListConfig={"blockTimestamp": 0})
    target = b"\x44" * 20
    for old in range(4):
        for name, new in allowlist.SETTERS.items():
            def edit(s, old=old):
                s.set_storage(txallowlist.ADDRESS, addr_word(EWOQ_ADDR), caller)
                s.set_storage(txallowlist.ADDRESS, addr_word(target), old)
            comp, state = run(chain, txallowlist.ADDRESS, selector(f"{name}(address)") + words(addr_word(target)),
                              edit=edit)
            allowed = allowlist.can_modify(caller, old, new)
            assert comp.is_error != allowed
            assert state.get_storage(txallowlist.ADDRESS, addr_word(target)) == (new if allowed else old)
            if not allowed:
                assert str(comp.error) == (f"cannot modify allow list: modify address: {EWOQ.address}, from role: "
                                           f"{allowlist.role_name(old)}, to role: {allowlist.role_name(new)}")


def test_native_minter_credit_wraps_and_skips_zero():
    chain = l1(contractNativeMinterConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
    to = b"\x55" * 20
    mint = lambda amount: selector("mintNativeCoin(address,uint256)") + words(addr_word(to), amount)  # noqa: E731
    comp, state = run(chain, nativeminter.ADDRESS, mint(0))
    assert not comp.is_error and not state.account_exists(to) and len(comp.get_log_entries()) == 1
    comp, state = run(chain, nativeminter.ADDRESS, mint(2**256 - 1), edit=lambda s: s.set_balance(to, 5))
    assert state.get_balance(to) == 4  # uint256 arithmetic, as geth's AddBalance


# ----------------------------------------------------------------------------- on an L1 engine


def test_genesis_activation_equals_a_blocks_and_empty_blocks_activate():
    cfg = {"adminAddresses": [EWOQ.address], "initialMint": {"0x" + "66" * 20: "0x10"}}
    at_genesis = l1(contractNativeMinterConfig={"blockTimestamp": 0, **cfg})
    later = START_MS // 1000 + 5
    built, mined = (l1(contractNativeMinterConfig={"blockTimestamp": later, **cfg}) for _ in range(2))
    assert at_genesis.view().get_code(nativeminter.ADDRESS) == b"\x01"
    assert built.view().get_code(nativeminter.ADDRESS) == b""
    for chain in (at_genesis, built, mined):  # block 1 (it places the ICM messenger) before `later`
        chain.build_block((later - 3) * 1000, include_txs=False)
    built.build_block(later * 1000, include_txs=False)
    mined.mine_empty(1, 3)  # one empty block at `later`: built as any block
    assert built.head.hash == mined.head.hash and built.state_root == mined.state_root
    # the activation's state is the genesis one's (same accounts, code, nonce, roles, balances)
    assert built.state_root == at_genesis.head.header.state_root != built.block(0).header.state_root
    assert built.view().get_balance(b"\x66" * 20) == 16
    # and empty blocks with no activation keep the state root
    mined.mine_empty(3, 1)
    assert mined.state_root == built.state_root


def test_tx_allow_list_at_admission_and_in_blocks():
    chain = l1(txAllowListConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
    with pytest.raises(ChainError, match=f"^cannot issue transaction from non-allow listed address: "
                                         f"{OTHER.address}$"):
        chain.submit_raw(signed(OTHER, chain, b"\x12" * 20, value=1, gas=21000))
    # eth_call's spoofed txs skip it; a signed tx in a block does not
    state = chain.vm_at(evm_header(chain.head.header, base_fee_per_gas=0)).state
    utx = SubnetEVMVM.create_unsigned_transaction(nonce=0, gas_price=0, gas=21000, to=b"\x12" * 20, value=0, data=b"")
    assert not state.apply_transaction(SpoofTransaction(utx, from_=OTHER_ADDR)).is_error
    from eth_utils import ValidationError
    tx = SubnetEVMVM.get_transaction_builder().decode(signed(OTHER, chain, b"\x12" * 20, value=1, gas=21000))
    with pytest.raises(ValidationError, match="non-allow listed"):
        state.apply_transaction(tx)


def test_transfers_beside_precompiles_take_the_fast_path_with_subnet_evm_fees():
    chain = l1(contractNativeMinterConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
    state = chain.vm_at(evm_header(chain.head.header)).state
    decode = SubnetEVMVM.get_transaction_builder().decode
    plain = decode(signed(EWOQ, chain, b"\x12" * 20, value=1, gas=21000))
    assert transfer.is_plain_transfer(state, plain)
    assert not transfer.is_plain_transfer(state, decode(signed(EWOQ, chain, nativeminter.ADDRESS, value=1,
                                                               gas=21000)))
    roots = []
    for fast in (True, False):
        transfer.FAST_TRANSFERS = fast
        try:
            c = l1(contractNativeMinterConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
            c.submit_raw(signed(EWOQ, c, b"\x12" * 20, value=1, gas=21000))
            c.submit_raw(signed(EWOQ, c, nativeminter.ADDRESS, value=7, gas=60_000))
            info = c.build_block()
            # the coinbase (the blackhole here) gets gas used x effective price, base fee included
            assert c.view().get_balance(info.header.coinbase) == \
                sum(rc[2] * rc[3] for rc in info.receipts)
            # plain value to a precompile runs it: no selector, an error using all the gas
            assert [(rc[0], rc[2]) for rc in info.receipts] == [(1, 21000), (0, 60_000)]
            roots.append(info.hash)
        finally:
            transfer.FAST_TRANSFERS = True
    assert roots[0] == roots[1] and c.view().get_balance(nativeminter.ADDRESS) == 0


def test_no_refunds_on_subnet_evm():
    chain = l1()
    # SSTORE 1 at slot 0, then clear it: Cancun would refund 19,900 (capped at a fifth)
    code = bytes.fromhex("6001600055600060005500")
    chain.edit_state(lambda s: s.set_code(b"\xc0" * 20, code))
    chain.submit_raw(signed(EWOQ, chain, b"\xc0" * 20, gas=100_000))
    used = chain.build_block().receipts[0][2]
    assert used == 21_000 + 3 * 4 + 22_100 + 100  # PUSHes, a cold SSTORE set, a warm SSTORE reset; no refund


def test_debug_trace_re_executes_activations_and_precompiles():
    later = START_MS // 1000 + 5
    chain = l1(contractNativeMinterConfig={"blockTimestamp": later, "adminAddresses": [EWOQ.address]})
    chain.clock.set_ms(later * 1000)
    data = selector("mintNativeCoin(address,uint256)") + words(addr_word(b"\x66" * 20), 3)
    chain.submit_raw(signed(EWOQ, chain, nativeminter.ADDRESS, data))
    info = chain.build_block()
    assert info.receipts[0][0] == 1 and len(info.receipts[0][5]) == 1
    [(_, traced)] = trace_block(EthAPI(chain), info, {"tracer": "callTracer"})
    assert int(traced["gasUsed"], 16) == info.receipts[0][2] and "error" not in traced
    [(_, logs)] = trace_block(EthAPI(chain), info, None)
    assert logs["failed"] is False and logs["gas"] == info.receipts[0][2]


def test_l1_blocks_record_call_frames_and_static_calls_see_the_active_precompiles():
    """subnet-EVM's computation (no refunds) keeps the block's call-frame recorder, also for a
    call to a stateful precompile; the indexer's static calls run the precompiles active at the
    block, as eth_call does."""
    chain = l1(contractNativeMinterConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]})
    data = selector("mintNativeCoin(address,uint256)") + words(addr_word(b"\x66" * 20), 3)
    chain.submit_raw(signed(EWOQ, chain, nativeminter.ADDRESS, data))
    info = chain.build_block()
    row = chain.block_row(info.number)
    [[frame]] = row["ct"]
    [(_, traced)] = trace_block(EthAPI(chain), info, {"tracer": "callTracer"})
    assert frame[:3] == [block_frames.K_CALL, EWOQ_ADDR, nativeminter.ADDRESS] and frame[7] is False
    assert frame[4] == int(traced["gas"], 16) and traced["to"] == "0x" + nativeminter.ADDRESS.hex()
    read = selector("readAllowList(address)") + words(addr_word(EWOQ_ADDR))
    assert chain.static_call(row, nativeminter.ADDRESS, read) == words(allowlist.ADMIN)


def test_fee_manager_and_reward_manager_steer_the_next_block():
    chain = l1(feeManagerConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address]},
               rewardManagerConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address],
                                    "initialRewardConfig": {"rewardAddress": "0x" + "77" * 20}})
    assert chain.head.number == 0 and chain.coinbase_for(chain.head) == b"\x77" * 20
    new = dict(GENESIS["config"]["feeConfig"], gasLimit=9_000_000, minBaseFee=50 * 10**9)
    data = selector("setFeeConfig(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)") + \
        words(*new.values())
    chain.submit_raw(signed(EWOQ, chain, feemanager.ADDRESS, data, gas=300_000))
    info = chain.build_block()
    assert info.header.gas_limit == 12_000_000 and info.header.coinbase == b"\x77" * 20
    assert chain.fee_config_json(info) == {"feeConfig": new, "lastChangedAt": info.number}
    assert chain.next_fees()[2] == 9_000_000 and chain.next_base_fee() == 50 * 10**9
    child = chain.build_block(include_txs=False)
    assert (child.header.gas_limit, child.header.base_fee_per_gas) == (9_000_000, 50 * 10**9)
    # empty blocks too: the reward manager's coinbase is a field of the subnet-EVM header it hashes
    chain.mine_empty(2, 1)
    chain.reload()
    mined = chain.block(chain.head.number)
    assert mined.header.coinbase == b"\x77" * 20 and mined.header.ext_data_hash is None
    assert mined.hash == keccak256(mined.header.encode())


def test_c_chain_warp_account_once_at_durango():
    """The C-Chain runs CorethVM, with coreth's Warp precompile from Durango: its account (nonce 1,
    code 0x01) is set in the first block at or after Durango, built or mined empty alike, and
    never again."""
    durango = START_MS // 1000 + 5
    rules = HeaderRules(coreth=True, base_fee=0, block_gas_cost=0, durango=durango, etna=durango, granite=durango)

    def c_chain() -> EVMChain:
        ctx = ChainContext(NodeConfig(), NETWORK, Store.memory(), VirtualClock(START_MS), b"\x01" * 32)
        chain = EVMChain(ctx, header_rules=rules)
        chain.automine = False
        return chain

    built, mined = c_chain(), c_chain()
    # before Granite (here at Durango too) without P256VERIFY
    assert built.vm_class is CorethVM and built.precompiles.vm_class_at(durango - 1) is vm_before_granite(CorethVM)
    assert [c.key for c in built.precompiles.active(durango)] == ["warpConfig"]
    assert built.view().get_code(WARP_ADDRESS) == b"" and built.head.header.timestamp < durango
    built.build_block((durango - 1) * 1000, include_txs=False)
    assert built.view().get_code(WARP_ADDRESS) == b""
    built.build_block(durango * 1000, include_txs=False)
    mined.mine_empty(1, durango - mined.head.header.timestamp - 1)
    mined.mine_empty(1, 1)  # crosses Durango: built the executing way
    assert built.head.hash == mined.head.hash and built.state_root == mined.state_root
    assert (built.view().get_nonce(WARP_ADDRESS), built.view().get_code(WARP_ADDRESS)) == (1, b"\x01")
    mined.mine_empty(3, 1)
    assert mined.state_root == built.state_root


def test_bad_precompile_configs_stop_the_chain(tmp_path):
    with pytest.raises(GenesisError, match="^failed to verify genesis: invalid precompile upgrades: duplicate "
                                           "address in admin list"):
        l1(txAllowListConfig={"blockTimestamp": 0, "adminAddresses": [EWOQ.address, EWOQ.address]})
    with pytest.raises(GenesisError, match="^parsing genesis: json: cannot unmarshal hex string without 0x prefix "
                                           "into Go struct field Config.adminAddresses of type common.Address$"):
        l1(txAllowListConfig={"blockTimestamp": 0, "adminAddresses": ["aa" * 20]})
    with pytest.raises(GenesisError, match="^failed to parse upgrade bytes: json: cannot unmarshal string into Go "
                                           "struct field Config.blockTimestamp of type uint64$"):
        l1(upgrades=up({"txAllowListConfig": {"blockTimestamp": "5"}}), tmp_path=tmp_path)
    with pytest.raises(GenesisError, match="^failed to parse upgrade bytes: unknown precompile config: nope$"):
        l1(upgrades=up({"nope": {}}), tmp_path=tmp_path)
    with pytest.raises(GenesisError, match="^failed to verify genesis: invalid precompile upgrades: precompile "
                                           "upgrade disable value is invalid"):
        l1(upgrades=up({"txAllowListConfig": {"blockTimestamp": 5}}), tmp_path=tmp_path,
           txAllowListConfig={"blockTimestamp": 0})
    assert BY_KEY["txAllowListConfig"] is txallowlist.MODULE
    assert deployerallowlist.check_origin(l1().view(), EWOQ_ADDR) == \
        f"tx.origin {EWOQ.address} is not authorized to deploy a contract"
