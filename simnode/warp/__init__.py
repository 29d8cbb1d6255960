"""Avalanche Warp messaging, below the VMs (it imports only codec, crypto and formats).

- message: UnsignedMessage, BitSetSignature, SignedMessage (vms/platformvm/warp)
- payload: the Hash and AddressedCall payloads (warp/payload)
- acp77: the P-Chain's L1 messages, their IDs and the L1's validator-uptime message
- justification: the protobuf justification of L1ValidatorRegistration(false)
- validators: canonical validator sets, signer bitsets, quorum
- signatures: signing, minimal heaviest signer subsets, aggregation, verification
- keystore: the secret keys of the validators simnode simulates

Which messages a validator agrees to sign depends on chain state, so that lives above the VMs
(simnode/signing); the P-Chain verifies signatures with this package.
"""
