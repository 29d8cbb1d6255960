"""When a validator agrees to sign a Warp message (ACP-118 verifiers), from chain state.

- Source P-Chain: AvalancheGo's signatureRequestVerifier (platformvm/network/warp.go): the ACP-77
  messages, justified by the P-Chain's state, with its AppError codes and texts.
- Source an EVM chain: subnet-evm's warp backend: a message the chain accepted (its
  SendWarpMessage) or an off-chain message configured for it; a Hash payload of an accepted
  block; an L1's ValidatorUptime message when the validator has been up that long.

A refusal is raised as `Refusal` (the AppError a real validator answers with).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from simnode.codec import CodecError
from simnode.formats import id_to_str
from simnode.warp import acp77
from simnode.warp.errors import WarpError
from simnode.warp.justification import SubnetIDIndex, decode_justification
from simnode.warp.message import UnsignedMessage
from simnode.warp.payload import AddressedCall, Hash, parse_addressed_call, parse_payload
from simnode.errors import InvalidInput

if TYPE_CHECKING:
    from simnode.vms.platform.state import State

# AvalancheGo platformvm/network/warp.go AppError codes.
ERR_PARSE_ADDRESSED_CALL = 1
ERR_ADDRESSED_CALL_HAS_SOURCE_ADDRESS = 2
ERR_PARSE_ADDRESSED_CALL_PAYLOAD = 3
ERR_UNSUPPORTED_PAYLOAD_TYPE = 4
ERR_PARSE_JUSTIFICATION = 5
ERR_CONVERSION_DOES_NOT_EXIST = 6
ERR_MISMATCHED_CONVERSION_ID = 7
ERR_INVALID_JUSTIFICATION_TYPE = 8
ERR_PARSE_SUBNET_ID = 9
ERR_MISMATCHED_VALIDATION_ID = 10
ERR_VALIDATION_DOES_NOT_EXIST = 11
ERR_VALIDATION_EXISTS = 12
ERR_PARSE_REGISTER_L1_VALIDATOR = 13
ERR_VALIDATION_COULD_BE_REGISTERED = 14
ERR_IMPOSSIBLE_NONCE = 15
ERR_WRONG_NONCE = 16
ERR_WRONG_WEIGHT = 17
# subnet-evm warp/verifier_backend.go AppError codes.
EVM_PARSE_ERR = 1
EVM_VERIFY_ERR = 2


class Refusal(Exception):
    """A validator's answer instead of a signature (common.AppError)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ChainWarpBackend(Protocol):
    """What an EVM chain tells the validators that sign its messages; the EVM VM implements it."""

    def accepted_message(self, message_id: bytes) -> UnsignedMessage | None:
        """The unsigned message of an accepted block's SendWarpMessage with this ID, if any."""

    def is_accepted_block(self, block_id: bytes) -> bool:
        """Whether `block_id` (a block hash) is an accepted block of the chain."""


def _id(raw: bytes) -> str:
    return f'"{id_to_str(raw)}"'


def _to_id(raw: bytes) -> bytes:
    if len(raw) != 32:
        raise InvalidInput(f"invalid hash length: expected 32 bytes but got {len(raw)}")
    return raw


# ------------------------------------------------------------------------------ the P-Chain


def justify_pchain(state: State, unsigned: UnsignedMessage, justification: bytes) -> None:
    try:
        call = parse_addressed_call(unsigned.payload)
    except CodecError as e:
        raise Refusal(ERR_PARSE_ADDRESSED_CALL, f"failed to parse warp addressed call: {e}") from None
    if call.source_address:
        raise Refusal(ERR_ADDRESSED_CALL_HAS_SOURCE_ADDRESS, "source address should be empty")
    try:
        msg = acp77.parse_pchain_message(call.payload)
    except CodecError as e:
        raise Refusal(ERR_PARSE_ADDRESSED_CALL_PAYLOAD, f"failed to parse warp addressed call payload: {e}") from None
    if isinstance(msg, acp77.SubnetToL1Conversion):
        _conversion(state, msg, justification)
    elif isinstance(msg, acp77.L1ValidatorRegistration):
        _registration(state, msg, justification)
    elif isinstance(msg, acp77.L1ValidatorWeight):
        _weight(state, msg)
    else:
        raise Refusal(ERR_UNSUPPORTED_PAYLOAD_TYPE,
                      f"unsupported warp addressed call payload type: {acp77.go_type_name(msg)}")


def _converted(state: State, subnet_id: bytes) -> bytes:
    sub = state.subnets.get(subnet_id)
    if sub is None or sub.conversion_id is None:
        raise Refusal(ERR_CONVERSION_DOES_NOT_EXIST, f"subnet {_id(subnet_id)} has not been converted")
    return sub.conversion_id


def _conversion(state: State, msg: acp77.SubnetToL1Conversion, justification: bytes) -> None:
    try:
        subnet_id = _to_id(justification)
    except ValueError as e:
        raise Refusal(ERR_PARSE_JUSTIFICATION, f"failed to parse justification: {e}") from None
    expected = _converted(state, subnet_id)
    if msg.conversion_id != expected:
        raise Refusal(ERR_MISMATCHED_CONVERSION_ID,
                      f"provided conversionID {_id(msg.conversion_id)} != expected conversionID {_id(expected)}")


def _registration(state: State, msg: acp77.L1ValidatorRegistration, justification: bytes) -> None:
    vid = msg.validation_id
    if msg.registered:
        if vid not in state.l1:
            raise Refusal(ERR_VALIDATION_DOES_NOT_EXIST, f"validation {_id(vid)} does not exist")
        return
    try:
        preimage = decode_justification(justification)
    except WarpError as e:
        raise Refusal(ERR_PARSE_JUSTIFICATION, f"failed to parse justification: {e}") from None
    if isinstance(preimage, SubnetIDIndex):
        _initial_validator_removed(state, vid, preimage)
    elif isinstance(preimage, bytes):
        _registration_impossible(state, vid, preimage)
    else:
        raise Refusal(ERR_INVALID_JUSTIFICATION_TYPE, "invalid justification type: <nil>")


def _initial_validator_removed(state: State, vid: bytes, preimage: SubnetIDIndex) -> None:
    """The validation ID is a ConvertSubnetToL1Tx validator's that is no longer registered."""
    try:
        subnet_id = _to_id(preimage.subnet_id)
    except ValueError as e:
        raise Refusal(ERR_PARSE_SUBNET_ID, f"failed to parse subnetID: {e}") from None
    expected = acp77.subnet_validation_id(subnet_id, preimage.index)
    if vid != expected:
        raise Refusal(ERR_MISMATCHED_VALIDATION_ID, f"validationID {_id(vid)} != justificationID {_id(expected)}")
    _converted(state, subnet_id)
    if vid in state.l1:
        raise Refusal(ERR_VALIDATION_EXISTS, f"validation {_id(vid)} exists")


def _registration_impossible(state: State, vid: bytes, register_message: bytes) -> None:
    """The validation ID is not registered and can never be: expired, or registered then removed."""
    try:
        reg = acp77.parse_register_l1_validator(register_message)
    except CodecError as e:
        raise Refusal(ERR_PARSE_REGISTER_L1_VALIDATOR,
                      f"failed to parse RegisterL1Validator justification: {e}") from None
    if vid != reg.validation_id:
        raise Refusal(ERR_MISMATCHED_VALIDATION_ID,
                      f"validationID {_id(vid)} != justificationID {_id(reg.validation_id)}")
    if vid in state.l1:
        raise Refusal(ERR_VALIDATION_EXISTS, f"validation {_id(vid)} exists")
    if reg.expiry <= state.meta.timestamp:
        return
    if not state.has_expiry(reg.expiry, vid):
        raise Refusal(ERR_VALIDATION_COULD_BE_REGISTERED,
                      f"validation {_id(vid)} can be registered until {reg.expiry}")


def _weight(state: State, msg: acp77.L1ValidatorWeight) -> None:
    if msg.nonce == acp77.MAX_U64:
        raise Refusal(ERR_IMPOSSIBLE_NONCE, "impossible nonce")
    v = state.l1.get(msg.validation_id)
    if v is None:
        raise Refusal(ERR_VALIDATION_DOES_NOT_EXIST, f"validation {_id(msg.validation_id)} does not exist")
    if msg.nonce + 1 != v.min_nonce:
        raise Refusal(ERR_WRONG_NONCE, f"provided nonce {msg.nonce} != expected nonce ({v.min_nonce} - 1)")
    if msg.weight != v.weight:
        raise Refusal(ERR_WRONG_WEIGHT, f"provided weight {msg.weight} != expected weight {v.weight}")


# ------------------------------------------------------------------------------ an EVM chain


def justify_chain(state: State, backend: ChainWarpBackend | None, off_chain: dict[bytes, UnsignedMessage],
                  unsigned: UnsignedMessage, now: int) -> None:
    """subnet-evm's backend.Verify for a message of the EVM chain `unsigned.source_chain_id`."""
    if unsigned.id in off_chain or (backend is not None and backend.accepted_message(unsigned.id) is not None):
        return
    try:
        payload = parse_payload(unsigned.payload)
    except CodecError as e:
        raise Refusal(EVM_PARSE_ERR, f"failed to parse payload: {e}") from None
    if isinstance(payload, Hash):
        if backend is None or not backend.is_accepted_block(payload.hash):
            raise Refusal(EVM_VERIFY_ERR, f"failed to get block {id_to_str(payload.hash)}: not found")
        return
    _uptime(state, unsigned.source_chain_id, payload, now)


def _uptime(state: State, chain_id: bytes, call: AddressedCall, now: int) -> None:
    try:
        msg = acp77.parse_validator_uptime(call.payload)
    except CodecError as e:
        raise Refusal(EVM_PARSE_ERR, f"failed to parse addressed call message: {e}") from None
    if call.source_address:
        raise Refusal(EVM_VERIFY_ERR, "source address should be empty for offchain addressed messages")
    # Every simulated validator is always connected, so its uptime is the time since it started.
    v = state.l1.get(msg.validation_id)
    if v is None or v.subnet_id != state.subnet_of_chain(chain_id):
        raise Refusal(EVM_VERIFY_ERR, f"failed to get uptime: validationID {id_to_str(msg.validation_id)} not found")
    uptime = max(0, now - v.start_time)
    if uptime < msg.total_uptime:
        raise Refusal(EVM_VERIFY_ERR, f"current uptime {uptime} is less than queried uptime {msg.total_uptime} "
                                      f"for validationID {id_to_str(msg.validation_id)}")
