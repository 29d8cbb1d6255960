"""C-Chain atomic txs: the avalanchejs vectors 14 (C.ImportTx.from_X) and 15 (C.ExportTx.to_X_1_AVAX)
byte for byte, replayed into a fresh C-Chain (shared memory, balances, nonce, block extra data,
tx index), the avax.* service, and the refusals (each with coreth's text, state unchanged)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from simnode.clock import VirtualClock
from simnode.codec import Credential, TransferOutput, decode_utxo
from simnode.config import NodeConfig
from simnode.crypto.hashing import keccak256
from simnode.crypto.secp256k1 import eth_address, public_key, short_address, sign_hash
from simnode.formats.ids import id_from_str, id_to_str, private_key_from_str, utxo_id
from simnode.genesis import load_network_genesis
from simnode.store import Store
from simnode.vms import atomic as shared
from simnode.vms.chain_context import ChainContext
from simnode.vms.evm.atomic_builder import build_export, build_import
from simnode.vms.evm.atomic_txs import (
    C_REGISTRY,
    EMPTY_EXT_DATA_HASH,
    AtomicTxError,
    EVMOutput,
    UnsignedExportTx,
    UnsignedImportTx,
    decode_block_txs,
    encode_block_txs,
    encode_tx,
    ext_data_hash,
    parse_tx,
    sign_tx,
)
from simnode.vms.evm.evm_chain import EVMChain

VECTORS = {v["name"]: v for v in json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "tx-vectors.json").read_text())}
V14 = VECTORS["C.ImportTx.from_X"]
V15 = VECTORS["C.ExportTx.to_X_1_AVAX"]
GENESIS = load_network_genesis(12345)
AVAX = GENESIS.avax_asset_id
X_ID, C_ID, P_ID = GENESIS.x_chain_id, GENESIS.c_chain_id, bytes(32)
EWOQ_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ_SHORT = short_address(public_key(EWOQ_KEY))
EWOQ_ETH = eth_address(EWOQ_KEY)
OTHER_KEY = hashlib.sha256(b"simnode-atomic-test-other").digest()
VECTOR_TIME_MS = 1_796_083_200_000
WEI = 10**9

def _hex(s: str) -> bytes:
    return bytes.fromhex(s[2:])

def make_chain(block_time: float = 0) -> EVMChain:
    ctx = ChainContext(NodeConfig(block_time=block_time), GENESIS, Store.memory(), VirtualClock(VECTOR_TIME_MS), C_ID)
    return EVMChain(ctx)

def seed_v14_utxo(chain: EVMChain) -> bytes:
    u = V14["inputUTXOs"][0]
    raw = _hex(u["hex"])
    uid = id_from_str(u["utxoID"])
    assert utxo_id(id_from_str(u["txID"]), u["outputIndex"]) == uid
    batch = chain.store.batch()
    shared.put_utxo(batch, C_ID, X_ID, shared.AtomicUTXO(uid, raw, (EWOQ_SHORT,)))
    batch.commit()
    return uid

# ------------------------------------------------------------------------------------------- codec

@pytest.mark.parametrize("vec", [V14, V15], ids=lambda v: v["name"])
def test_vectors_decode_and_reencode(vec):
    raw = _hex(vec["signedTxHex"])
    tx = parse_tx(raw)
    assert id_to_str(tx.id) == vec["txID"]
    assert tx.unsigned_bytes == _hex(vec["unsignedTxHex"])
    assert "0x" + tx.unsigned_hash.hex() == vec["unsignedTxSha256"]
    assert encode_tx(tx.unsigned, tx.creds).bytes == raw
    assert tx.gas_used() == int(vec["fee"]["gas"])
    assert tx.burned(AVAX) == int(vec["feeBurned"])
    # issue form = bytes + 4-byte sha256 checksum
    assert _hex(vec["signedTxIssueHex"]) == raw + hashlib.sha256(raw).digest()[-4:]
    ext = encode_block_txs([tx])
    assert ext == b"\x00\x00" + (1).to_bytes(4, "big") + raw[2:]
    assert [t.bytes for t in decode_block_txs(ext)] == [raw]

def test_vector_fields():
    imp = parse_tx(_hex(V14["signedTxHex"])).unsigned
    assert isinstance(imp, UnsignedImportTx)
    assert (imp.network_id, imp.blockchain_id, imp.source_chain) == (12345, C_ID, X_ID)
    assert imp.outs == (EVMOutput(EWOQ_ETH, 99_999_719_250, AVAX),)
    exp = parse_tx(_hex(V15["signedTxHex"])).unsigned
    assert isinstance(exp, UnsignedExportTx)
    assert exp.destination_chain == X_ID
    (ein,) = exp.ins
    assert (ein.address, ein.amount, ein.nonce) == (EWOQ_ETH, 1_000_280_750, 0)
    assert ext_data_hash(b"") == EMPTY_EXT_DATA_HASH

def test_trailing_bytes_and_bad_type_refused():
    raw = _hex(V14["signedTxHex"])
    with pytest.raises(ValueError, match="trailing buffer space"):
        parse_tx(raw + b"\x00")
    with pytest.raises(ValueError):
        parse_tx(raw[:2] + (2).to_bytes(4, "big") + raw[6:])

# ------------------------------------------------------------------------------------------- replay

def test_replay_vectors_14_then_15():
    chain = make_chain()
    assert chain.atomic is not None
    uid = seed_v14_utxo(chain)
    bal0 = chain.view().get_balance(EWOQ_ETH)
    assert chain.next_base_fee() == 1  # the vectors burned for 25 gwei: more than enough

    tx_id = chain.atomic.issue(_hex(V14["signedTxHex"]))
    assert id_to_str(tx_id) == V14["txID"]
    assert chain.head.number == 1  # automine: the atomic tx alone made a block
    assert chain.atomic.status(tx_id) == ("Accepted", 1)
    assert chain.view().get_balance(EWOQ_ETH) == bal0 + 99_999_719_250 * WEI
    assert chain.view().get_nonce(EWOQ_ETH) == 0
    assert shared.get_utxo(chain.store, C_ID, X_ID, uid) is None
    assert list(shared.utxo_ids_by_address(chain.store, C_ID, X_ID, EWOQ_SHORT)) == []
    blk = chain.head
    assert blk.ext == encode_block_txs([parse_tx(_hex(V14["signedTxHex"]))]) and blk.ext_gas == 11230
    assert blk.raws == [] and blk.header.gas_used == 0
    assert blk.fee.excess == 11230  # ACP-176 counts extDataGasUsed
    assert ext_data_hash(blk.ext) == keccak256(b"\xb9" + len(blk.ext).to_bytes(2, "big") + blk.ext)

    tx_id = chain.atomic.issue(_hex(V15["signedTxHex"]))
    assert id_to_str(tx_id) == V15["txID"]
    assert chain.atomic.status(tx_id) == ("Accepted", 2)
    assert chain.view().get_nonce(EWOQ_ETH) == 1
    assert chain.view().get_balance(EWOQ_ETH) == bal0 + (99_999_719_250 - 1_000_280_750) * WEI
    (prod,) = V15["producedUTXOs"]
    got = shared.get_utxo(chain.store, X_ID, C_ID, id_from_str(prod["utxoID"]))
    assert got == _hex(prod["hex"])
    assert list(shared.utxo_ids_by_address(chain.store, X_ID, C_ID, EWOQ_SHORT)) == [id_from_str(prod["utxoID"])]
    raw, status, height = chain.atomic.get(tx_id)
    assert (raw, status, height) == (_hex(V15["signedTxHex"]), "Accepted", 2)

def test_blocks_survive_restart():
    chain = make_chain()
    seed_v14_utxo(chain)
    tx_id = chain.atomic.issue(_hex(V14["signedTxHex"]))
    again = EVMChain(chain.ctx)
    assert again.head.ext == chain.head.ext and again.head.ext_gas == 11230
    assert again.atomic.status(tx_id) == ("Accepted", 1)

# ------------------------------------------------------------------------------------------- refusals

def _refused(chain: EVMChain, raw: bytes, match: str) -> None:
    before = (chain.head.number, chain.state_root, len(chain.atomic))
    with pytest.raises(AtomicTxError, match=match):
        chain.atomic.issue(raw)
    assert (chain.head.number, chain.state_root, len(chain.atomic)) == before
    assert chain.atomic.status(parse_tx(raw).id)[0] == "Unknown"

def _v14_utxo():
    return decode_utxo(_hex(V14["inputUTXOs"][0]["hex"]), C_REGISTRY)

def test_double_import_refused():
    chain = make_chain()
    seed_v14_utxo(chain)
    chain.atomic.issue(_hex(V14["signedTxHex"]))
    before = (chain.head.number, chain.state_root)
    with pytest.raises(AtomicTxError, match=r"failed to fetch import UTXOs from 2eNy1mUF.* due to: not found"):
        chain.atomic.issue(_hex(V14["signedTxHex"]))
    assert (chain.head.number, chain.state_root) == before
    assert chain.atomic.status(parse_tx(_hex(V14["signedTxHex"])).id) == ("Accepted", 1)

def test_wrong_nonce_refused():
    chain = make_chain()
    tx = build_export(chain.atomic.ctx, X_ID, 10**9, EWOQ_SHORT, EWOQ_KEY, nonce=5, base_fee_wei=1)
    _refused(chain, tx.bytes, "^invalid nonce$")

def test_insufficient_burn_refused():
    chain = make_chain()
    seed_v14_utxo(chain)
    u = _v14_utxo()
    imp = parse_tx(_hex(V14["signedTxHex"])).unsigned
    no_burn = UnsignedImportTx(imp.network_id, imp.blockchain_id, imp.source_chain, imp.imported_inputs,
                               (EVMOutput(EWOQ_ETH, u.out.amount, AVAX),))
    _refused(chain, sign_tx(no_burn, [[EWOQ_KEY]]).bytes, "^import tx flow check failed due to: insufficient funds$")
    # at 25 gwei the vector's burn is exactly enough; at a higher base fee it is not
    tx = parse_tx(_hex(V14["signedTxHex"]))
    from simnode.vms.evm.atomic_txs import semantic_verify
    semantic_verify(tx, chain.atomic.ctx, 25 * 10**9, chain.atomic.get_utxo, 0)
    with pytest.raises(AtomicTxError, match="flow check failed"):
        semantic_verify(tx, chain.atomic.ctx, 25 * 10**9 + 10**8, chain.atomic.get_utxo, 0)

def test_forged_signatures_refused():
    chain = make_chain()
    seed_v14_utxo(chain)
    imp = parse_tx(_hex(V14["signedTxHex"]))
    forged = encode_tx(imp.unsigned, [Credential((sign_hash(OTHER_KEY, imp.unsigned_hash),))])
    _refused(chain, forged.bytes, "^import tx transfer failed verification: wrong signature")
    exp = parse_tx(_hex(V15["signedTxHex"]))
    forged = encode_tx(exp.unsigned, [Credential((sign_hash(OTHER_KEY, exp.unsigned_hash),))])
    _refused(chain, forged.bytes, "^signature doesn't match public key$")
    # a high-S (malleated) signature
    sig = exp.creds[0].signatures[0]
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    s = int.from_bytes(sig[32:64], "big")
    high = sig[:32] + (n - s).to_bytes(32, "big") + bytes([sig[64] ^ 1])
    _refused(chain, encode_tx(exp.unsigned, [Credential((high,))]).bytes, "signature")

def test_wrong_chain_ids_refused():
    chain = make_chain()
    seed_v14_utxo(chain)
    imp = parse_tx(_hex(V14["signedTxHex"])).unsigned
    for bad in (
        UnsignedImportTx(imp.network_id, X_ID, imp.source_chain, imp.imported_inputs, imp.outs),
        UnsignedImportTx(imp.network_id, C_ID, C_ID, imp.imported_inputs, imp.outs),
        UnsignedImportTx(imp.network_id, C_ID, b"\x07" * 32, imp.imported_inputs, imp.outs),
    ):
        _refused(chain, sign_tx(bad, [[EWOQ_KEY]]).bytes, "^tx has wrong chain ID$")
    bad = UnsignedImportTx(1, C_ID, X_ID, imp.imported_inputs, imp.outs)
    _refused(chain, sign_tx(bad, [[EWOQ_KEY]]).bytes, "^tx was issued with a different network ID$")
    exp = parse_tx(_hex(V15["signedTxHex"])).unsigned
    bad = UnsignedExportTx(exp.network_id, exp.blockchain_id, C_ID, exp.ins, exp.exported_outputs)
    _refused(chain, sign_tx(bad, [[EWOQ_KEY]]).bytes, "^tx has wrong chain ID$")

def test_non_avax_and_unsorted_refused():
    chain = make_chain()
    seed_v14_utxo(chain)
    imp = parse_tx(_hex(V14["signedTxHex"])).unsigned
    out = imp.outs[0]
    bad = UnsignedImportTx(imp.network_id, C_ID, X_ID, imp.imported_inputs,
                           (EVMOutput(out.address, 5, b"\x09" * 32), out))
    _refused(chain, sign_tx(bad, [[EWOQ_KEY]]).bytes, "non-AVAX")
    bad = UnsignedImportTx(imp.network_id, C_ID, X_ID, imp.imported_inputs,
                           (EVMOutput(b"\x02" * 20, 5, AVAX), EVMOutput(b"\x01" * 20, 5, AVAX)))
    _refused(chain, sign_tx(bad, [[EWOQ_KEY]]).bytes, "^outputs not sorted and unique$")

def test_export_more_than_balance_refused():
    chain = make_chain()
    poor = hashlib.sha256(b"poor").digest()
    tx = build_export(chain.atomic.ctx, X_ID, 10**9, EWOQ_SHORT, poor, nonce=0, base_fee_wei=1)
    _refused(chain, tx.bytes, "^insufficient funds$")

# ------------------------------------------------------------------------------------------- mempool

def test_mempool_double_issue_and_conflicts():
    chain = make_chain(block_time=2)  # interval mining: txs wait in the pool
    seed_v14_utxo(chain)
    raw = _hex(V14["signedTxHex"])
    tx_id = chain.atomic.issue(raw)
    assert chain.atomic.issue(raw) == tx_id  # the same tx again: accepted silently
    assert len(chain.atomic) == 1 and chain.atomic.status(tx_id) == ("Processing", None)
    assert chain.atomic.get(tx_id) == (raw, "Processing", None)
    # another import of the same UTXO with a lower (or equal) gas price: refused
    other = build_import(chain.atomic.ctx, X_ID, [_v14_utxo()], b"\x05" * 20, [EWOQ_KEY], base_fee_wei=1)
    with pytest.raises(AtomicTxError, match="^conflicting atomic tx: issued tx"):
        chain.atomic.issue(other.bytes)
    # two exports of the same account nonce conflict too
    e1 = build_export(chain.atomic.ctx, X_ID, 10**9, EWOQ_SHORT, EWOQ_KEY, 0, base_fee_wei=1)
    chain.atomic.issue(e1.bytes)
    e2 = build_export(chain.atomic.ctx, P_ID, 10**9, EWOQ_SHORT, EWOQ_KEY, 0, base_fee_wei=1)
    with pytest.raises(AtomicTxError, match="conflicting atomic tx"):
        chain.atomic.issue(e2.bytes)
    assert chain.has_pending()
    chain.build_block()
    assert chain.atomic.status(tx_id) == ("Accepted", 1)
    assert chain.atomic.status(e1.id) == ("Accepted", 1)
    assert len(decode_block_txs(chain.head.ext)) == 2 and chain.head.ext_gas == 2 * 11230
    assert not chain.has_pending()

def test_builder_import_and_export_round_trip():
    chain = make_chain()
    seed_v14_utxo(chain)
    ctx = chain.atomic.ctx
    to = b"\x42" * 20
    imp = build_import(ctx, X_ID, [_v14_utxo()], to, [EWOQ_KEY], base_fee_wei=chain.next_base_fee())
    chain.atomic.issue(imp.bytes)
    got = chain.view().get_balance(to)
    assert got == imp.unsigned.outs[0].amount * WEI and imp.burned(AVAX) >= 1
    exp = build_export(ctx, P_ID, 10 * 10**9, EWOQ_SHORT, EWOQ_KEY, nonce=0, base_fee_wei=chain.next_base_fee())
    chain.atomic.issue(exp.bytes)
    (uid,) = shared.utxo_ids_by_address(chain.store, P_ID, C_ID, EWOQ_SHORT)
    utxo = decode_utxo(shared.get_utxo(chain.store, P_ID, C_ID, uid), C_REGISTRY)
    assert (utxo.tx_id, utxo.output_index, utxo.out.amount) == (exp.id, 0, 10 * 10**9)
    assert isinstance(utxo.out, TransferOutput)

def test_revert_clears_pool_and_undoes_import():
    chain = make_chain(block_time=2)
    uid = seed_v14_utxo(chain)
    snap = chain.snapshot()
    chain.atomic.issue(_hex(V14["signedTxHex"]))
    chain.build_block()
    assert shared.get_utxo(chain.store, C_ID, X_ID, uid) is None
    assert chain.revert(snap)
    assert shared.get_utxo(chain.store, C_ID, X_ID, uid) is not None
    assert chain.atomic.status(parse_tx(_hex(V14["signedTxHex"])).id)[0] == "Unknown"
