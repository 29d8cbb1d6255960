"""simnode.genesis: the IDs, UTXOs, stakers and genesis bytes AvalancheGo derives from the same files."""

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from simnode.codec import (
    StakeableLockOut,
    TransferOutput,
    decode_utxo,
    encode_utxo,
    new_p_registry,
    new_x_registry,
)
from simnode.formats import EVM_VM_ID, ZERO_ID, id_to_str, node_id_to_str, parse_address
from simnode.genesis import (
    GENESIS_DATA_DIRS,
    LOCAL_START_TIME_PERIOD,
    Genesis,
    GenesisError,
    build_genesis,
    load_genesis,
    load_network_genesis,
    network_genesis_path,
    parse_c_chain_genesis,
    parse_genesis_config,
    read_genesis_config,
    rebased_start_time,
)

REPO = Path(__file__).resolve().parents[2]
LOCAL_FILE = REPO / "genesis" / "genesis_local.json"
FUJI_FILE = REPO / "genesis" / "genesis_fuji.json"
VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "tx-vectors.json"

EWOQ = parse_address("X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u")[2]
EWOQ_EVM = bytes.fromhex("8db97c7cece249c2b98bdc0226cc4c2a57bf52fc")
LOCKTIME = 1633824000


@pytest.fixture(scope="module")
def local() -> Genesis:
    return load_genesis(LOCAL_FILE)


@pytest.fixture(scope="module")
def fuji() -> Genesis:
    return load_genesis(FUJI_FILE)


def local_file_json() -> dict:
    return json.loads(LOCAL_FILE.read_text())


def test_local_ids(local: Genesis) -> None:
    assert id_to_str(local.x_chain_id) == "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
    assert id_to_str(local.c_chain_id) == "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"
    assert id_to_str(local.avax_asset_id) == "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
    assert hashlib.sha256(local.avax_asset_tx_bytes).digest() == local.avax_asset_id
    assert (local.network_id, local.hrp, local.network_name) == (12345, "local", "local")


def test_fuji_ids(fuji: Genesis) -> None:
    assert id_to_str(fuji.x_chain_id) == "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
    assert id_to_str(fuji.c_chain_id) == "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"
    assert id_to_str(fuji.avax_asset_id) == "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"
    assert (fuji.network_id, fuji.hrp, fuji.network_name) == (5, "fuji", "fuji")


def test_p_genesis_bytes_match_avalanchego(local: Genesis, fuji: Genesis) -> None:
    # avalanchego genesis/genesis_test.go TestGenesis: sha256 of FromConfig's P-Chain genesis bytes.
    fuji_genesis_id = hashlib.sha256(fuji.p_genesis_bytes).digest()
    local_genesis_id = hashlib.sha256(local.p_genesis_bytes).digest()
    assert id_to_str(fuji_genesis_id) == "MSj6o9TpezwsQx4Tv7SHqpVvCbJ8of1ikjsqPZ1bKRjc9zBy3"
    assert id_to_str(local_genesis_id) == "2nRRoR76HuEk1JjDpRdN8FKvZFvUXWxY3b9C5rZRPFjcgEh7S7"  # the file's startTime
    # Fuji's P-Chain genesis block (the ApricotCommitBlock a node logs as its first last-accepted block).
    assert id_to_str(fuji.p_genesis_block_id) == "99BWrAqUMvTp9nXKXyjPsCqjGwDqVFqssTRQbu58af57Cf9VG"


def test_x_genesis_bytes_layout(local: Genesis) -> None:
    # u16 0 | u32 1 asset | str "AVAX" | CreateAssetTx fields (== the asset tx minus version, type ID and creds)
    assert local.x_genesis_bytes[:12] == b"\x00\x00" + b"\x00\x00\x00\x01" + b"\x00\x04AVAX"
    assert local.x_genesis_bytes[12:] == local.avax_asset_tx_bytes[6:-4]
    assert local.chains[0].genesis_data == local.x_genesis_bytes
    assert local.chains[1].genesis_data == local_file_json()["cChainGenesis"].encode()
    assert local.chains[1].vm_id == EVM_VM_ID and local.chains[1].fx_ids == ()
    assert [c.name for c in local.chains] == ["X-Chain", "C-Chain"]


def test_local_x_utxos(local: Genesis) -> None:
    assert [(u.output_index, u.out.amount) for u in local.x_utxos] == [(0, 10**16), (1, 300_000_000 * 10**9)]
    ewoq_utxo = local.x_utxos[1]
    assert ewoq_utxo.tx_id == ewoq_utxo.asset_id == local.avax_asset_id
    assert ewoq_utxo.out.owners.addresses == (EWOQ,)
    vector = next(v for v in json.loads(VECTORS.read_text()) if v["name"] == "X.BaseTx.send_1_AVAX_with_change")
    expected = vector["inputUTXOs"][0]
    assert "0x" + encode_utxo(ewoq_utxo, new_x_registry()).hex() == expected["hex"]
    assert id_to_str(ewoq_utxo.id) == expected["utxoID"]


def test_local_p_utxos(local: Genesis) -> None:
    entries = [(e.utxo.output_index, e.utxo.out.owners.addresses[0], e.utxo.out.amount) for e in local.p_utxos]
    ur873 = parse_address("X-local1ur873jhz9qnaqv5qthk5sn3e8nj3e0kmggalnu")[2]
    assert entries == [(0, EWOQ, 20_000_000 * 10**9), (1, EWOQ, 10_000_000 * 10**9), (2, ur873, 10**16)]
    for entry in local.p_utxos:
        assert entry.utxo.tx_id == ZERO_ID  # genesis UTXOs on P have an empty tx ID
        assert entry.utxo.asset_id == local.avax_asset_id
        assert entry.message == bytes.fromhex("b3d82b1367d362de99ab59a658165aff520cbd4d")
        # the locktime (1633824000) is before the start time, so nothing is wrapped in a stakeable lock
        assert type(entry.utxo.out) is TransferOutput
    ewoq_total = sum(e.utxo.out.amount for e in local.p_utxos if e.utxo.out.owners.addresses == (EWOQ,))
    assert ewoq_total == 30_000_000 * 10**9


def test_locked_p_utxos_before_the_locktime() -> None:
    early = load_genesis(LOCAL_FILE, start_time=LOCKTIME - 1)
    outs = [e.utxo.out for e in early.p_utxos]
    assert type(outs[0]) is TransferOutput and outs[0].amount == 20_000_000 * 10**9
    assert type(outs[1]) is StakeableLockOut and outs[1].locktime == LOCKTIME and outs[1].amount == 10**16
    stake = early.validators[0].stake_outputs[0].out
    assert type(stake) is StakeableLockOut and stake.locktime == LOCKTIME
    for entry in early.p_utxos:
        assert decode_utxo(encode_utxo(entry.utxo, new_p_registry()), new_p_registry()) == entry.utxo


def test_local_stakers(local: Genesis) -> None:
    by_node = {node_id_to_str(v.node_id): v for v in local.validators}
    expected = [
        ("NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", 1_000_000),
        ("NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ", 500_000),
        ("NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN", 250_000),
        ("NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu", 125_000),
        ("NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5", 62_500),
    ]
    assert len(local.validators) == 5
    for i, (node_id, fee) in enumerate(expected):
        v = by_node[node_id]
        assert v.delegation_fee == fee
        assert v.weight == 2_000_000_000_000_000
        assert v.start_time == 1721016000
        assert v.end_time == 1721016000 + 31536000 - i * 5400
        assert v.reward_owner.addresses == (EWOQ,) and v.reward_owner.threshold == 1
        assert v.signer is not None and len(v.signer.public_key) == 48
        assert hashlib.sha256(v.tx_bytes).digest() == v.tx_id
        assert v.tx_bytes[2:6] == (25).to_bytes(4, "big")  # AddPermissionlessValidatorTx
        staked_by = parse_address("X-local1g65uqn6t77p656w64023nh8nd9updzmxyymev2")[2]
        assert [(o.out.amount, o.out.owners.addresses) for o in v.stake_outputs] == [(2 * 10**15, (staked_by,))]
    # genesis order = Go's heap array after pushing by end time
    assert [node_id_to_str(v.node_id)[7:12] for v in local.validators] == ["P7oB2", "GWPcb", "MFrZF", "7Xhw2", "NFBbb"]


def test_fuji_stakers(fuji: Genesis) -> None:
    assert len(fuji.validators) == 20
    assert all(v.signer is None and v.tx_bytes[2:6] == (12).to_bytes(4, "big") for v in fuji.validators)
    assert sum(v.weight for v in fuji.validators) == 4 * 10**16


def test_supply_and_message(local: Genesis) -> None:
    assert local.initial_supply == 360_000_000_000_000_000
    assert local.message == "{{ fun_quote }}"
    assert local.start_time == 1721016000


def test_c_chain_genesis(local: Genesis) -> None:
    c = local.c_chain_genesis
    assert c.raw == local_file_json()["cChainGenesis"]
    assert c.chain_id == 43112
    assert c.gas_limit == 0x5F5E100
    assert c.timestamp == 0x5FCB13D0 == 1607144400
    assert c.difficulty == 0 and c.extra_data == b"\x00"
    assert c.balance_of(EWOQ_EVM) == 0x295BE96E64066972000000 == 50_000_000 * 10**18
    assert c.balance_of(bytes(20)) == 0
    assert c.config["apricotPhase1BlockTimestamp"] == 0


def test_rebased_start_time() -> None:
    start = 1721016000
    assert rebased_start_time(start, start) == start
    assert rebased_start_time(start, start + LOCAL_START_TIME_PERIOD - 1) == start
    assert rebased_start_time(start, start + LOCAL_START_TIME_PERIOD) == start + LOCAL_START_TIME_PERIOD
    assert rebased_start_time(start, start + 5 * LOCAL_START_TIME_PERIOD + 7) == start + 5 * LOCAL_START_TIME_PERIOD
    assert rebased_start_time(start, start - 100) == start


def test_load_network_genesis() -> None:
    now = 1796083200
    local = load_network_genesis(12345, now=now)
    assert local.start_time == rebased_start_time(1721016000, now)
    assert local.start_time <= now < local.start_time + LOCAL_START_TIME_PERIOD
    assert id_to_str(local.x_chain_id) == "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"  # not time dependent
    assert all(v.start_time == local.start_time for v in local.validators)
    assert load_network_genesis(12345).start_time == 1721016000
    fuji = load_network_genesis(5, now=now)
    assert fuji.start_time == 1599696000  # only the local config is re-based
    custom = load_network_genesis(4321)
    assert (custom.network_id, custom.hrp, custom.network_name) == (4321, "custom", "network-4321")
    assert custom.x_chain_id != local.x_chain_id
    with pytest.raises(GenesisError, match="mainnet"):
        load_network_genesis(1)


def test_packaged_copies_match_repository() -> None:
    packaged, repository = GENESIS_DATA_DIRS
    for name in ("genesis_local.json", "genesis_fuji.json"):
        assert (packaged / name).read_bytes() == (repository / name).read_bytes()
    assert network_genesis_path(12345) == packaged / "genesis_local.json"


# --- malformed files -----------------------------------------------------------------------------


def write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "genesis.json"
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


def test_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(GenesisError, match="unable to load"):
        load_genesis(tmp_path / "missing.json")
    with pytest.raises(GenesisError, match="could not unmarshal genesis JSON"):
        load_genesis(write(tmp_path, "{not json"))
    with pytest.raises(GenesisError, match="expected a JSON object"):
        load_genesis(write(tmp_path, [1, 2]))
    with pytest.raises(GenesisError, match="missing field 'networkID'"):
        load_genesis(write(tmp_path, {"allocations": []}))

    base = local_file_json()
    eth_addr = base["allocations"][0]["ethAddr"]
    staker = base["initialStakers"][0]
    cases = [
        ({"networkID": "12345"}, "networkID"),
        ({"startTime": -1}, "startTime"),
        ({"allocations": {"a": 1}}, "allocations: expected a JSON array"),
        ({"allocations": [{"ethAddr": "0x00", "avaxAddr": base["allocations"][0]["avaxAddr"]}]}, "expected 20 bytes"),
        ({"allocations": [{"ethAddr": eth_addr, "avaxAddr": "X-local1bad"}]}, "invalid address"),
        ({"allocations": [{**base["allocations"][1], "initialAmount": 1.5}]}, "initialAmount"),
        ({"initialStakers": []}, "initial stakers must be > 0"),
        ({"initialStakers": [{**staker, "nodeID": "7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"}]}, "nodeID"),
        ({"initialStakers": [{**staker, "signer": {"publicKey": "0x00"}}]}, "publicKey: expected 48 bytes"),
        ({"initialStakers": [{**staker, "signer": {"publicKey": "0x" + "00" * 48}}]}, "proofOfPossession"),
        ({"initialStakers": [{**staker, "delegationFee": 2**32}]}, "delegationFee"),
        ({"initialStakedFunds": ["X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96v"]}, "invalid checksum"),
        ({"initialStakedFunds": ["X-local1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqljssag"]}, "no allocation to stake"),
        ({"initialStakedFunds": []}, "validator has not weight"),
        ({"initialStakeDuration": 0}, "validator would have already unstaked"),
        ({"cChainGenesis": ""}, "C-Chain genesis cannot be empty"),
        ({"cChainGenesis": "{oops"}, "cChainGenesis: invalid JSON"),
        ({"cChainGenesis": 5}, "must be strings"),
        ({"allocations": [{**a, "initialAmount": 0, "unlockSchedule": []} for a in base["allocations"]]}, "supply"),
        ({"allocations": [{**base["allocations"][1], "initialAmount": 2**64 - 1}]}, "overflow"),
    ]
    for change, message in cases:
        with pytest.raises(GenesisError, match=message):
            load_genesis(write(tmp_path, {**base, **change}))


def test_c_chain_genesis_parsing_errors() -> None:
    with pytest.raises(GenesisError, match="missing config"):
        parse_c_chain_genesis("{}")
    with pytest.raises(GenesisError, match="balance"):
        parse_c_chain_genesis('{"config":{"chainId":1},"alloc":{"0x' + "11" * 20 + '":{"balance":"lots"}}}')
    with pytest.raises(GenesisError, match="expected 20 bytes"):
        parse_c_chain_genesis('{"config":{"chainId":1},"alloc":{"0x11":{"balance":"0x1"}}}')
    parsed = parse_c_chain_genesis('{"config":{"chainId":"0x10"},"alloc":{"0x' + "11" * 20 + '":{"balance":"100"}}}')
    assert parsed.chain_id == 16 and parsed.alloc[0].balance == 100


def test_build_genesis_is_deterministic() -> None:
    config = read_genesis_config(LOCAL_FILE)
    assert build_genesis(config) == build_genesis(parse_genesis_config(local_file_json()))
    moved = build_genesis(replace(config, start_time=config.start_time + 10))
    assert moved.p_genesis_bytes != build_genesis(config).p_genesis_bytes
    assert moved.x_chain_id == build_genesis(config).x_chain_id
