"""The gas limit a relayer gives a ``receiveCrossChainMessage`` tx (warp-icm.md §3.5): icm-services'
``CalculateReceiveMessageGasLimit`` with the Warp precompile's Granite gas, which it always assumes.

    requiredGasLimit
    + 2 · predicate chunks · 512      (the signed message is paid for in the predicate and again when read)
    + 35 · Warp payload bytes         (decoding the Teleporter message)
    + 2,500 · receipts                (settling each receipt)
    + 250 · signers
    + 125,000 + 750                   (predicate verification, getVerifiedWarpMessage)
    + 250,000                         (the messenger's own work)

"Warp payload bytes" is the unsigned message's payload, i.e. the AddressedCall around the ABI-encoded
TeleporterMessage (icm-services passes ``len(signedMessage.Payload)``).
"""

from __future__ import annotations

from .errors import ICMError

PER_WARP_MESSAGE_CHUNK = 512
PER_WARP_SIGNER = 250
VERIFY_PREDICATE_BASE = 125_000
GET_VERIFIED_WARP_MESSAGE_BASE = 750
MARK_MESSAGE_RECEIPT_GAS = 2_500
DECODE_MESSAGE_GAS_PER_BYTE = 35
TELEPORTER_OVERHEAD_GAS = 250_000

_UINT64_LIMIT = 1 << 64


def predicate_chunk_count(signed_message_size: int) -> int:
    """32-byte access-list keys a signed message takes as a Warp predicate: the bytes, a 0xff
    delimiter, zero padding to a multiple of 32."""
    if signed_message_size < 0:
        raise ICMError("a message size cannot be negative")
    return signed_message_size // 32 + 1


def receive_message_gas_limit(*, num_signers: int, required_gas_limit: int, signed_message_size: int,
                              warp_payload_size: int, receipt_count: int) -> int:
    """The relayer's gas limit for delivering one message; errors as icm-services gives them (a
    requiredGasLimit beyond uint64, a sum that overflows uint64)."""
    if min(num_signers, required_gas_limit, warp_payload_size, receipt_count) < 0:
        raise ICMError("gas inputs cannot be negative")
    if required_gas_limit >= _UINT64_LIMIT:
        raise ICMError("required gas limit too high")
    total = (required_gas_limit
             + predicate_chunk_count(signed_message_size) * PER_WARP_MESSAGE_CHUNK * 2
             + warp_payload_size * DECODE_MESSAGE_GAS_PER_BYTE
             + receipt_count * MARK_MESSAGE_RECEIPT_GAS
             + num_signers * PER_WARP_SIGNER
             + VERIFY_PREDICATE_BASE
             + GET_VERIFIED_WARP_MESSAGE_BASE
             + TELEPORTER_OVERHEAD_GAS)
    if total >= _UINT64_LIMIT:
        raise ICMError("overflow")
    return total
