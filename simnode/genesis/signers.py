"""The genesis stakers' BLS keys as simnode runs them: the listed signer where its secret ships with
simnode (the local network's), otherwise a key derived from the node's seed."""

import json
from dataclasses import dataclass, replace

from simnode.crypto import bls
from simnode.warp.keystore import derived_secret_key

from .config import BlsSigner, GenesisConfig
from .loader import GENESIS_DATA_DIRS

KNOWN_SIGNERS_FILE = "local_signers.json"  # AvalancheGo's staking/local/signer*.key


@dataclass(frozen=True, slots=True)
class StakerKeys:
    """The genesis stakers' BLS keys as simnode runs them.

    `config`: the genesis config with every staker's signer set to a key simnode can sign with;
    `secrets`: node ID -> secret key; `derived`: the stakers whose listed signer secret is
    unknown (or who list none) and so got a key derived from the node's seed instead.
    """

    config: GenesisConfig
    secrets: dict[bytes, bls.SecretKey]
    derived: tuple[bytes, ...]


def known_signer_secrets() -> dict[bytes, bls.SecretKey]:
    """The signer secrets simnode ships (the local network's), by compressed public key."""
    for directory in GENESIS_DATA_DIRS:
        path = directory / KNOWN_SIGNERS_FILE
        if path.is_file():
            document = json.loads(path.read_text(encoding="utf-8"))
            keys = [bls.secret_key_from_bytes(bytes.fromhex(e["secretKey"][2:])) for e in document["signers"]]
            return {bls.public_key(k): k for k in keys}
    return {}


def staker_keys(config: GenesisConfig, seed: int) -> StakerKeys:
    """Keep each staker's listed signer when its secret ships with simnode; otherwise give the
    staker a key derived from the seed (its signer entry then lists that key)."""
    known = known_signer_secrets()
    stakers = []
    secrets: dict[bytes, bls.SecretKey] = {}
    derived = []
    for staker in config.initial_stakers:
        secret = known.get(staker.signer.public_key) if staker.signer is not None else None
        if secret is None:
            secret = derived_secret_key(seed, staker.node_id)
            derived.append(staker.node_id)
            staker = replace(staker, signer=BlsSigner(bls.public_key(secret), bls.prove_possession(secret)))
        secrets[staker.node_id] = secret
        stakers.append(staker)
    return StakerKeys(replace(config, initial_stakers=tuple(stakers)), secrets, tuple(derived))

