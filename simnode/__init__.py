"""simnode: a single-process simulated Avalanche node.

Importing it changes nothing outside simnode: the changes a node makes to its libraries (speed-ups
of py-evm and py-trie, a faster keccak backend) are made when a node starts (simnode/patches.py).
"""
