"""The real C-Chain keys a contract's storage trie by the slot with the lowest bit of its first byte
cleared (coreth's extstate.normalizeStateKey): the storage roots AvalancheGo v1.14.2 reported for two
exported contracts, kept as known answers (tests/vectors/avalanchego_cchain_storage_keys.json)."""

from __future__ import annotations

import json
from pathlib import Path

from simnode.scenario.export_check import storage_root

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_cchain_storage_keys.json")
                     .read_text())


def test_the_real_c_chain_storage_root_follows_coreths_key_rule():
    for account in VECTORS["accounts"]:
        assert storage_root(account["storage"], coreth_keys=True) == account["storageHash_avalanchego"]
        assert storage_root(account["storage"]) == account["storageHash_simnode"]
        # the rule matters here: some slots' first byte is odd
        assert any(int(k[2:4], 16) & 1 for k in account["storage"])


def test_keys_with_an_even_first_byte_are_keyed_as_written():
    storage = {"0x" + "00" * 31 + "01": "0x" + "00" * 31 + "2a", "0x80" + "11" * 31: "0x" + "00" * 31 + "07"}
    assert storage_root(storage, coreth_keys=True) == storage_root(storage)
    odd = {"0x81" + "11" * 31: "0x" + "00" * 31 + "07"}
    assert storage_root(odd, coreth_keys=True) == storage_root({"0x80" + "11" * 31: "0x" + "00" * 31 + "07"})
