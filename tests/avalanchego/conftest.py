"""Fixtures beside a real AvalancheGo node: skipped, with one line saying why, when the binaries
are not given (AVALANCHEGO_PATH, AVALANCHEGO_PLUGIN_DIR)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from simnode.testing import avalanchego


@pytest.fixture(scope="module")
def real_node() -> Iterator[avalanchego.RealNode]:
    why = avalanchego.missing()
    if why:
        pytest.skip(why)
    node = avalanchego.RealNode.start(chain_configs=avalanchego.DIFF_CHAIN_CONFIGS)
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="module")
def sim_node() -> Iterator[str]:
    from simnode.config import NodeConfig
    from simnode.node import Node
    # the default log level: the first node of a process sets the display level of all (simnode/logs.py)
    handle = Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="wall"))
    try:
        yield handle.url
    finally:
        handle.stop()
