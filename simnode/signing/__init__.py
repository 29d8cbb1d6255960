"""Warp signing by the simulated validators, and the signature aggregator's core.

Above the VMs (it reads the P-Chain's state and asks EVM chains what they accepted), below the
API (the REST routes of the aggregator call it); the node wires it:
- justify: which messages a validator agrees to sign (the P-Chain's ACP-77 rules, an EVM chain's
  accepted messages and blocks, off-chain messages, L1 validator uptimes)
- signer: each validator simnode holds the key of signs what is justified
- aggregator: the signed message with the minimal heaviest signer subset, or a clear refusal
"""
