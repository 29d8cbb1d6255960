"""The BLS secret keys of the validators simnode simulates, found by public key.

A validator signs with the key the P-Chain reports for it. simnode holds that key's secret when:
- it is a genesis staker whose signer secret ships with simnode (the local network's), added here
  by the node; or
- simnode made the validator (a genesis with unknown signer secrets, a scenario step, an L1
  validator a scenario registers): then the key is derived from the node's seed and the node ID,
  so it is found again after a restart without storing secrets.
A key a user brought is neither: that validator never signs, like an offline node.
"""

from __future__ import annotations

from collections.abc import Iterable

from simnode.crypto import bls


def derived_secret_key(seed: int, node_id: bytes) -> bls.SecretKey:
    """The BLS key simnode gives a validator it creates, from the node's seed and the node ID."""
    return bls.secret_key_from_seed(b"simnode-node-bls/" + seed.to_bytes(8, "big") + node_id)


class Keystore:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._secrets: dict[bytes, bls.SecretKey] = {}
        self._not_derived: set[tuple[bytes, bytes]] = set()  # (public key, node ID) already tried

    def add(self, secret_key: bls.SecretKey) -> bytes:
        public_key = bls.public_key(secret_key)
        self._secrets[public_key] = secret_key
        return public_key

    def secret_for(self, public_key: bytes, node_ids: Iterable[bytes]) -> bls.SecretKey | None:
        """The secret of `public_key` (held by the validator(s) `node_ids`), or None if simnode has none."""
        secret = self._secrets.get(public_key)
        if secret is not None:
            return secret
        for node_id in node_ids:
            if (public_key, node_id) in self._not_derived:
                continue
            candidate = derived_secret_key(self.seed, node_id)
            if bls.public_key(candidate) == public_key:
                self._secrets[public_key] = candidate
                return candidate
            self._not_derived.add((public_key, node_id))
        return None
