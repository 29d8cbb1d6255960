"""Signing, aggregating and verifying Warp messages (warp.BitSetSignature, BLS via crypto.bls).

Every validator signs the same bytes (the unsigned message), so an aggregate signature is the sum
of the signers' signatures and verifies against the sum of their public keys (FastAggregateVerify).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from simnode.crypto import bls

from .errors import WarpError
from .message import BitSetSignature, SignedMessage, UnsignedMessage
from .validators import WarpSet, bitset_bytes, bitset_indices, meets_quorum, verify_weight


def sign(secret_keys: list[bls.SecretKey], unsigned: UnsignedMessage) -> list[bytes]:
    """Each key's 96-byte signature of the unsigned message bytes."""
    return bls.sign_many(secret_keys, unsigned.encoded)


def sign_aggregate(signers: Mapping[int, bls.SecretKey], unsigned: UnsignedMessage) -> tuple[dict[int, bytes],
                                                                                          SignedMessage]:
    """Each signer's signature (by canonical index) and the signed message carrying their aggregate."""
    if not signers:
        raise WarpError("no signatures")
    indices = sorted(signers)
    sigs, total = bls.sign_and_aggregate([signers[i] for i in indices], unsigned.encoded)
    return dict(zip(indices, sigs)), SignedMessage(unsigned, BitSetSignature(bitset_bytes(indices), total))


def heaviest_signers(warp_set: WarpSet, candidates: Iterable[int], quorum_num: int,
                     quorum_den: int = 100) -> list[int] | None:
    """The minimal heaviest subset of `candidates` (canonical indices) that reaches the quorum:
    the heaviest first, ties in canonical order (as icm-services prunes), so the same set and
    candidates always give the same signers. None when all of them together fall short."""
    vdrs = warp_set.validators
    chosen: list[int] = []
    weight = 0
    for i in sorted(set(candidates), key=lambda i: (-vdrs[i].weight, i)):
        chosen.append(i)
        weight += vdrs[i].weight
        if meets_quorum(weight, warp_set.total_weight, quorum_num, quorum_den):
            return sorted(chosen)
    return None


def aggregate(unsigned: UnsignedMessage, signatures: Mapping[int, bytes]) -> SignedMessage:
    """The signed message carrying the aggregate of `signatures` (canonical index -> signature)."""
    if not signatures:
        raise WarpError("no signatures")
    indices = sorted(signatures)
    signature = bls.aggregate_signatures([signatures[i] for i in indices])
    return SignedMessage(unsigned, BitSetSignature(bitset_bytes(indices), signature))


def verify(message: SignedMessage, network_id: int, warp_set: WarpSet, quorum_num: int,
           quorum_den: int) -> None:
    """BitSetSignature.Verify: raises WarpError with AvalancheGo's text at the first failed check."""
    if message.unsigned.network_id != network_id:
        raise WarpError("wrong networkID")
    sig = message.signature
    indices = bitset_indices(sig.signer_bits(), len(warp_set.validators))
    signers = [warp_set.validators[i] for i in indices]
    verify_weight(sum(v.weight for v in signers), warp_set.total_weight, quorum_num, quorum_den)
    problem = bls.signature_error(sig.signature)
    if problem is not None:
        raise WarpError(f"failed to parse signature: {problem}")
    if not signers:
        raise WarpError("no public keys")
    if not bls.fast_aggregate_verify([v.public_key for v in signers], sig.signature, message.unsigned.encoded):
        raise WarpError("signature is invalid")
