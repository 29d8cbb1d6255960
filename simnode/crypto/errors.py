"""The one exception type of simnode.crypto."""


class CryptoError(ValueError):
    """Bad key, signature or encoding. Messages mirror AvalancheGo's where it has one,
    because they surface verbatim in API error strings."""
