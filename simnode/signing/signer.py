"""The simulated validators signing Warp messages.

simnode is every validator at once, and all of them see the same chains, so whether a message is
justified is decided once per request; then each validator of the set whose secret key the
keystore holds signs. A validator whose key simnode does not hold (a key a user brought) never
signs, like an offline node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from simnode.codec import CodecError
from simnode.crypto import bls
from simnode.formats import id_to_str
from simnode.vms.platform.state import PLATFORM_CHAIN_ID
from simnode.vms.platform.vm import PlatformVM
from simnode.warp import signatures
from simnode.warp.keystore import Keystore
from simnode.warp.message import SignedMessage, UnsignedMessage, parse_unsigned_message
from simnode.warp.payload import parse_addressed_call
from simnode.warp.validators import WarpSet
from simnode.errors import InvalidInput, Refused

from .justify import EVM_PARSE_ERR, ChainWarpBackend, Refusal, justify_chain, justify_pchain


class PlatformValidators:
    """The P-Chain's validator sets as the EVM chains' Warp predicates need them
    (precompiles/warp.ValidatorView), read from the P-Chain in `chains` on every use."""

    def __init__(self, chains: Mapping[bytes, Any]) -> None:
        self.chains = chains

    def _state(self) -> Any:
        return self.chains[PLATFORM_CHAIN_ID].state

    def subnet_of_chain(self, chain_id: bytes) -> bytes | None:
        return self._state().subnet_of_chain(chain_id)

    def warp_set(self, subnet_id: bytes, height: int) -> WarpSet:
        return self._state().warp_set(subnet_id, height)

    def height(self) -> int:
        return self._state().meta.height


class WarpSigner:
    def __init__(self, platform: PlatformVM, keystore: Keystore) -> None:
        """`platform`: the P-Chain VM (its state and clock are read on every request)."""
        self.platform = platform
        self.keystore = keystore
        self.backends: dict[bytes, ChainWarpBackend] = {}
        self.off_chain: dict[bytes, dict[bytes, UnsignedMessage]] = {}

    def register_chain(self, chain_id: bytes, backend: ChainWarpBackend) -> None:
        """An EVM chain's accepted messages and blocks, for the validators that sign for it."""
        self.backends[chain_id] = backend

    def add_off_chain_message(self, unsigned_bytes: bytes) -> UnsignedMessage:
        """A message the validators of its source chain sign without any on-chain event
        (subnet-evm's `warp-off-chain-messages`): an AddressedCall of this network's EVM chain."""
        try:
            msg = parse_unsigned_message(unsigned_bytes)
            parse_addressed_call(msg.payload)
        except CodecError as e:
            raise InvalidInput(f"failed to parse off-chain message: {e}") from None
        if msg.network_id != self.platform.network_id:
            raise Refused("wrong networkID")
        if msg.source_chain_id == PLATFORM_CHAIN_ID or self.platform.state.subnet_of_chain(msg.source_chain_id) is None:
            raise Refused(f"wrong SourceChainID: {id_to_str(msg.source_chain_id)} is not an EVM chain here")
        self.off_chain.setdefault(msg.source_chain_id, {})[msg.id] = msg
        return msg

    def justify(self, unsigned: UnsignedMessage, justification: bytes) -> None:
        """Raise the Refusal every validator answers with if the message is not justified."""
        if unsigned.network_id != self.platform.network_id:
            raise Refusal(EVM_PARSE_ERR, "wrong networkID")
        state = self.platform.state
        source = unsigned.source_chain_id
        if source == PLATFORM_CHAIN_ID:
            justify_pchain(state, unsigned, justification)
        elif state.subnet_of_chain(source) is None:
            raise Refusal(EVM_PARSE_ERR, "wrong SourceChainID")
        else:
            justify_chain(state, self.backends.get(source), self.off_chain.get(source, {}), unsigned,
                          self.platform.next_block_time())

    def holders(self, warp_set: WarpSet) -> list[int]:
        """The canonical indices of the validators whose secret key simnode holds."""
        return [i for i, v in enumerate(warp_set.validators)
                if self.keystore.secret_for(v.public_key, v.node_ids) is not None]

    def _held_keys(self, warp_set: WarpSet, indices: Iterable[int]) -> dict[int, bls.SecretKey]:
        keys = {}
        for i in sorted(set(indices)):
            v = warp_set.validators[i]
            secret = self.keystore.secret_for(v.public_key, v.node_ids)
            if secret is not None:
                keys[i] = secret
        return keys

    def sign(self, unsigned: UnsignedMessage, justification: bytes, warp_set: WarpSet,
             indices: Iterable[int]) -> dict[int, bytes]:
        """The signatures of the validators at `indices` that simnode holds the keys of, by index;
        raises Refusal when the message is not justified."""
        self.justify(unsigned, justification)
        keys = self._held_keys(warp_set, indices)
        return dict(zip(keys, signatures.sign(list(keys.values()), unsigned)))

    def sign_aggregate(self, unsigned: UnsignedMessage, justification: bytes, warp_set: WarpSet,
                       indices: Iterable[int]) -> SignedMessage:
        """`sign`, and the signed message carrying the aggregate of those signatures."""
        self.justify(unsigned, justification)
        keys = self._held_keys(warp_set, indices)
        return signatures.sign_aggregate(keys, unsigned)[1]
