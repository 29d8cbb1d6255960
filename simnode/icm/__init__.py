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

The unit tests run the messenger on simnode's EVM with the real Warp precompile (a signed message
as predicate 0 of the delivering tx). The node's integration tests check the precompile's
predicates against the validators' signatures (tests/integration/test_warp_precompile.py).
"""
