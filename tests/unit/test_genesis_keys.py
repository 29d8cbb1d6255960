"""The genesis stakers' BLS keys: the local network's published secrets, seed-derived keys otherwise."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from simnode.crypto import bls
from simnode.formats import node_id_from_str, node_id_to_str
from simnode.genesis import known_signer_secrets, load_network_genesis, read_genesis_config, staker_keys
from simnode.warp.keystore import derived_secret_key

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "simnode" / "genesis_data"
REFERENCE_LOCAL = Path("/work/shared/reference/genesis/genesis_local.json")


def _signers(path: Path) -> dict[bytes, tuple[bytes, bytes]]:
    stakers = json.loads(path.read_text())["initialStakers"]
    return {node_id_from_str(s["nodeID"]): (bytes.fromhex(s["signer"]["publicKey"][2:]),
                                          bytes.fromhex(s["signer"]["proofOfPossession"][2:])) for s in stakers}


def test_shipped_secrets_match_the_local_genesis_proofs_of_possession() -> None:
    shipped = json.loads((PACKAGED / "local_signers.json").read_text())["signers"]
    for path in (PACKAGED / "genesis_local.json", REFERENCE_LOCAL):
        signers = _signers(path)
        assert len(shipped) == len(signers) == 5
        for entry in shipped:
            sk = bls.secret_key_from_bytes(bytes.fromhex(entry["secretKey"][2:]))
            public_key, pop = signers[node_id_from_str(entry["nodeID"])]
            assert bls.public_key(sk) == public_key
            assert bls.prove_possession(sk) == pop  # the genesis PoP, byte for byte
            assert bls.verify_possession(public_key, pop)
    # AvalancheGo's staking/local/signer<i>.key hold these 32 bytes
    assert bytes.fromhex(shipped[0]["secretKey"][2:]) == b"AvalancheLocalNetworkValidator01"
    assert len(known_signer_secrets()) == 5


def test_local_stakers_keep_their_genesis_signers() -> None:
    config = read_genesis_config(PACKAGED / "genesis_local.json")
    keys = staker_keys(config, seed=42)
    assert keys.derived == () and keys.config == config
    signers = _signers(PACKAGED / "genesis_local.json")
    assert {n: bls.public_key(sk) for n, sk in keys.secrets.items()} == {n: pk for n, (pk, _) in signers.items()}


def test_unknown_signer_secrets_get_seed_derived_keys() -> None:
    fuji = load_network_genesis(5).config  # no signers at all
    keys = staker_keys(fuji, seed=3)
    assert len(keys.derived) == 20
    for staker in keys.config.initial_stakers:
        sk = derived_secret_key(3, staker.node_id)
        assert keys.secrets[staker.node_id] == sk
        assert staker.signer.public_key == bls.public_key(sk)
        assert bls.verify_possession(staker.signer.public_key, staker.signer.proof_of_possession)
    # a local-like genesis listing a key nobody published: that staker alone is re-keyed
    local = read_genesis_config(PACKAGED / "genesis_local.json")
    stranger = bls.secret_key_from_seed(b"a key simnode never saw".ljust(32, b"."))
    first = local.initial_stakers[0]
    changed = replace(local, initial_stakers=(replace(first, signer=replace(
        first.signer, public_key=bls.public_key(stranger), proof_of_possession=bls.prove_possession(stranger))),
        *local.initial_stakers[1:]))
    keys = staker_keys(changed, seed=0)
    assert [node_id_to_str(n) for n in keys.derived] == [node_id_to_str(first.node_id)]
    assert keys.config.initial_stakers[1:] == local.initial_stakers[1:]
