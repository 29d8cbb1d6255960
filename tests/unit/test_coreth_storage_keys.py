"""The real C-Chain keys a contract's storage trie by the slot with the lowest bit of its first byte
cleared (coreth's extstate.normalizeStateKey), and so does simnode's C-Chain account DB
(rules.CorethAccountDB); an L1 (subnet-evm, rules.FastAccountDB) keys slots as written. Known
answers: the storage roots AvalancheGo v1.14.2 reported for two exported contracts
(tests/vectors/avalanchego_cchain_storage_keys.json)."""

from __future__ import annotations

import json
from pathlib import Path

from eth.constants import BLANK_ROOT_HASH
from eth.db.atomic import AtomicDB

from simnode.scenario.export_check import storage_root
from simnode.vms.evm.rules import CorethAccountDB, FastAccountDB

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_cchain_storage_keys.json")
                     .read_text())
ODD, EVEN = 0x81 << 248 | 0x11, 0x80 << 248 | 0x11


def _stored_root(db_class: type, address: bytes, storage: dict[str, str]) -> str:
    db = db_class(AtomicDB(), BLANK_ROOT_HASH)
    db.set_balance(address, 1)
    for key, value in storage.items():
        db.set_storage(address, int(key, 16), int(value, 16))
    db.persist()
    return "0x" + db._get_storage_root(address).hex()


def test_simnodes_c_chain_storage_root_is_the_real_nodes():
    for account in VECTORS["accounts"]:
        address, storage = bytes.fromhex(account["address"][2:]), account["storage"]
        assert any(int(k[2:4], 16) & 1 for k in storage)  # the rule matters here: some first bytes are odd
        assert _stored_root(CorethAccountDB, address, storage) == account["storageHash_avalanchego"]
        assert storage_root(storage, coreth_keys=True) == account["storageHash_avalanchego"]
        # an L1 keys them as written: another root
        assert _stored_root(FastAccountDB, address, storage) == storage_root(storage) \
            == account["storageHash_keys_as_written"] != account["storageHash_avalanchego"]


def test_on_the_c_chain_twin_keys_are_one_slot_on_an_l1_two():
    address = b"\x11" * 20
    c_chain, l1 = CorethAccountDB(AtomicDB(), BLANK_ROOT_HASH), FastAccountDB(AtomicDB(), BLANK_ROOT_HASH)
    for db in (c_chain, l1):
        db.set_storage(address, ODD, 7)
    assert c_chain.get_storage(address, EVEN) == c_chain.get_storage(address, ODD) == 7
    assert (l1.get_storage(address, EVEN), l1.get_storage(address, ODD)) == (0, 7)
    c_chain.set_storage(address, EVEN, 0)
    assert c_chain.get_storage(address, ODD) == 0
    assert CorethAccountDB.storage_key(ODD) == CorethAccountDB.storage_key(EVEN) == EVEN
    assert FastAccountDB.storage_key(ODD) == ODD


def test_keys_with_an_even_first_byte_are_keyed_as_written():
    storage = {"0x" + "00" * 31 + "01": "0x" + "00" * 31 + "2a", "0x80" + "11" * 31: "0x" + "00" * 31 + "07"}
    assert storage_root(storage, coreth_keys=True) == storage_root(storage)
    odd = {"0x81" + "11" * 31: "0x" + "00" * 31 + "07"}
    assert storage_root(odd, coreth_keys=True) == storage_root({"0x80" + "11" * 31: "0x" + "00" * 31 + "07"})
