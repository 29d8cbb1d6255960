"""ICM (Teleporter v1): simnode's own TeleporterMessenger and the pure-Python codec around it.

- ``contracts/``: the messenger (TeleporterMessenger.sol, ABI-, event- and storage-compatible with
  ICM's v1 contract at 0x253b…5fcf, our own code, warp-icm.md §3) and PingPongReceiver.sol (an
  ITeleporterReceiver for end-to-end tests), with JSON artifacts reproduced byte for byte by
  ``scripts/compile_contracts.py`` (pinned solc-js).
- ``artifacts``: loads those artifacts; the messenger's genesis ``alloc`` entries.
- ``messages``: the message structs, ``abi.encode(TeleporterMessage)`` (the Warp payload), message
  IDs, and calldata for the messenger's functions.
- ``events``: topic0 of every messenger event and a decoder for its logs.
- ``gas``: the relayer's gas limit for ``receiveCrossChainMessage``.
- ``placement``: the state change at the start of block 1 that puts the messenger on every EVM chain
  (block 0 stays the real genesis; a genesis with code at 0x253b…5fcf is left alone).

Nothing here imports a VM: the relayer, the ICM index and the genesis builder use it from above.

The unit tests run the messenger on simnode's EVM with a test-only stand-in at the Warp precompile
address. What still needs the real Warp precompile to be tested end to end:

- a message sent on one chain, signed by its validators and delivered in a tx whose access list
  carries the signed message as predicate 0 (``getVerifiedWarpMessage(0)`` from the predicate);
- ``valid = false`` from a failed predicate (bad or insufficient signatures, wrong subnet) giving
  "TeleporterMessenger: invalid warp message", and the tx still landing;
- ``getBlockchainID`` answering the chain's real blockchain ID (so message IDs match across chains),
  and the SendWarpMessage log carrying the full unsigned message;
- the gas a delivery really uses (predicate and chunk gas) against ``gas.receive_message_gas_limit``;
- the messenger present from genesis at 0x253b…5fcf on the C-Chain and every L1 EVM chain;
- ping-pong between two chains through the in-process relayer, with relayer rewards redeemed.
"""
