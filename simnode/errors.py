"""Node-level errors a user sees: a bad alias, an unknown snapshot, a data dir in use."""


class NodeError(ValueError):
    pass
