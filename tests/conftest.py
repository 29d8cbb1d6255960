"""simnode's own suite runs its modules as a node runs them: with simnode's changes to its
libraries made first (simnode/patches.py), before any test module imports simnode or py-evm."""

from simnode import patches

patches.install()
