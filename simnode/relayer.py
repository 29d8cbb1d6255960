"""The in-process ICM relayer: every SendCrossChainMessage of the TeleporterMessenger on an EVM chain
is delivered to its destination chain in a following block, as icm-services' relayer does.

For each accepted block of an EVM chain, the messenger's SendCrossChainMessage logs are paired
with the SendWarpMessage log of the same tx (the unsigned Warp message, sent by the messenger).
Each message is signed through the node's aggregator by the set the destination verifies with
(the source subnet's validators, or the destination's own for a Primary Network message unless
it sets requirePrimaryNetworkSigners), then sent to the destination as an ordinary signed
EIP-1559 tx from the relayer account: `receiveCrossChainMessage(0, relayer)` with the signed
message as predicate 0 in the access list and the gas icm-services' estimate gives (icm/gas.py).
A message to the same chain works the same way. A message whose destination chain is not running
here stays pending until it runs; one the validators will not sign, or the destination refuses,
is logged and stays pending too. A message the destination's messenger has received already
(relayed by hand meanwhile) is not sent again: `messageReceived(messageID)` is asked first, as
icm-services' relayer checks before it delivers.

Pending messages outlive a restart as icm-services' relayer's do (it re-reads the blocks after
its stored height): when the relayer attaches to a chain, the messenger's messages among the
chain's accepted Warp messages (its `wm/` rows) are pending again, in nonce order, and those
already received are dropped at the first delivery attempt.

The relayer account's key is derived from the node's seed (icm/relayer_account.py); every EVM chain
credits it RELAYER_FUNDS at the start of block 1 (the chain's `first_block_credits`, applied like a
precompile activation, so block 0 keeps the real genesis hash) and rewards go to it. It is on by
default: `--no-relayer` or `simnode.setRelayer {"enabled": false}` turn it off to test manual relaying
(messages seen meanwhile are kept and go out when it is back on). The node makes the relayer with
its first EVM chain (py-evm is loaded by then).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .icm import events as icm_events
from .icm.errors import ICMError
from .icm.gas import receive_message_gas_limit
from .icm.messages import (MESSENGER_ADDRESS, TeleporterMessage, decode_message, encode_message, message_id,
                           receive_cross_chain_message_calldata, selector)
from .icm.relayer_account import relayer_address, relayer_key
from .signing.aggregator import AggregationRefused, AggregationRequest
from .vms.evm import predicates
from .vms.evm.precompiles import warp
from .vms.evm.receipts import ReceiptRow
from .warp.message import UnsignedMessage
from .warp.payload import parse_addressed_call

log = logging.getLogger("simnode.relayer")

TIP = 10**9  # 1 gwei priority fee


MESSAGE_RECEIVED = selector("messageReceived(bytes32)")


@dataclass(frozen=True, slots=True)
class Pending:
    source_chain_id: bytes
    destination_chain_id: bytes
    unsigned: UnsignedMessage
    message_id: bytes
    message: TeleporterMessage


def sent_messages(chain_id: bytes, receipts: list[ReceiptRow]) -> list[Pending]:
    """The messenger's messages in a block's receipt rows."""
    out = []
    for rc in receipts:
        logs = rc.logs
        warp_messages = {m.id: m for m in warp.accepted_messages(logs)
                         if parse_addressed_call(m.payload).source_address == MESSENGER_ADDRESS}
        for address, topics, data in logs:
            if address != MESSENGER_ADDRESS:
                continue
            try:
                event = icm_events.decode_event(topics, data)
            except ICMError:
                continue
            if not isinstance(event, icm_events.SendCrossChainMessage):
                continue
            for unsigned in warp_messages.values():
                if parse_addressed_call(unsigned.payload).payload == encode_message(event.message):
                    out.append(Pending(chain_id, event.destination_blockchain_id, unsigned, event.message_id,
                                       event.message))
                    break
    return out


def stored_messages(chain: Any) -> list[Pending]:
    """The messenger's messages among a chain's accepted Warp messages, in nonce order."""
    out = []
    for unsigned in chain.accepted_messages():
        call = parse_addressed_call(unsigned.payload)
        if call.source_address != MESSENGER_ADDRESS:
            continue
        try:
            message = decode_message(call.payload)
        except ICMError:
            continue
        out.append(Pending(chain.chain_id, message.destination_blockchain_id, unsigned,
                           message_id(chain.chain_id, message.destination_blockchain_id, message.message_nonce),
                           message))
    return sorted(out, key=lambda p: p.message.message_nonce)


class Relayer:
    def __init__(self, node: Any) -> None:
        self.node = node
        self.key = relayer_key(node.config.seed)
        self.address = relayer_address(node.config.seed)
        self.pending: list[Pending] = []
        self._attached: set[int] = set()

    def attach(self, chain: Any) -> None:
        """Follow an EVM chain's accepted blocks (and deliver what waited for it)."""
        if id(chain) in self._attached:
            return
        self._attached.add(id(chain))
        chain.listeners.append(lambda kind, payload: self._on_event(chain, kind, payload))
        known = {p.message_id for p in self.pending}
        self.pending.extend(p for p in stored_messages(chain) if p.message_id not in known)
        self.flush()

    @property
    def enabled(self) -> bool:
        return self.node.relayer_on

    def _on_event(self, chain: Any, kind: str, block: Any) -> None:
        if kind != "block" or not block.receipts:
            return
        found = sent_messages(chain.chain_id, block.receipts)
        if found:
            self.pending.extend(found)
            self.flush()

    def flush(self) -> None:
        """Deliver every pending message whose destination chain runs here (if the relayer is on);
        forget those their source chain no longer has (a revert took their block away)."""
        if not self.enabled or not self.pending:
            return
        waiting = []
        for p in self.pending:
            source = self.node.chains.get(p.source_chain_id)
            if source is None or source.accepted_message(p.unsigned.id) is None:
                continue
            destination = self.node.chains.get(p.destination_chain_id)
            if destination is None or not hasattr(destination, "accepted_message"):
                waiting.append(p)
            elif not self._received(destination, p) and not self._deliver(destination, p):
                waiting.append(p)
        self.pending = waiting

    @staticmethod
    def _received(destination: Any, p: Pending) -> bool:
        """Has the destination's messenger received the message (at its head)?"""
        out = destination.static_call(destination.block_row(destination.head_number), MESSENGER_ADDRESS,
                                      MESSAGE_RECEIVED + p.message_id)
        return bool(out) and int.from_bytes(out[:32], "big") == 1

    def _signing_subnet(self, p: Pending, destination: Any) -> bytes:
        """The set the destination's predicate check uses (precompiles/warp.verifying_subnet)."""
        config = destination.warp_config(destination.head.header.timestamp)
        return warp.verifying_subnet(config.settings if config is not None else None, p.source_chain_id,
                                     self.node.warp_validators.subnet_of_chain(p.source_chain_id),
                                     destination.subnet_id)

    def _deliver(self, destination: Any, p: Pending) -> bool:
        from .vms.evm.vmerrors import ChainError
        try:
            signed = self.node.aggregator.aggregate(AggregationRequest(
                p.unsigned.encoded, b"", self._signing_subnet(p, destination)))
        except AggregationRefused as e:
            log.warning("ICM message 0x%s not relayed yet: %s", p.message_id.hex(), e.message)
            return False
        encoded = signed.encoded
        gas = receive_message_gas_limit(num_signers=signed.signature.num_signers(),
                                        required_gas_limit=p.message.required_gas_limit,
                                        signed_message_size=len(encoded),
                                        warp_payload_size=len(encode_message(p.message)),
                                        receipt_count=len(p.message.receipts))
        builder = destination.vm_class.get_transaction_builder()
        max_fee = destination.next_base_fee() * 2 + TIP
        utx = builder.new_unsigned_dynamic_fee_transaction(
            chain_id=destination.evm_chain_id, nonce=destination.pending_nonce(self.address),
            max_priority_fee_per_gas=TIP, max_fee_per_gas=max_fee, gas=gas, to=MESSENGER_ADDRESS, value=0,
            data=receive_cross_chain_message_calldata(0, self.address),
            access_list=[(warp.ADDRESS, [int.from_bytes(c, "big") for c in predicates.encode(encoded)])])
        from eth_keys import keys as eth_keys  # with py-evm's tx classes (eth_utils): not at the node's start

        tx = utx.as_signed_transaction(eth_keys.PrivateKey(self.key))
        try:
            destination.submit_tx(tx, tx.encode(), self.address)
        except ChainError as e:
            log.warning("ICM message 0x%s not relayed yet: %s", p.message_id.hex(), e)
            return False
        log.info("relayed ICM message 0x%s to %s", p.message_id.hex(), destination.name)
        return True
