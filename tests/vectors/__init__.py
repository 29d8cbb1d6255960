"""Known-answer vectors from shared/reference/vectors (avalanchejs 5.2.0), committed with the tests."""

import json
from pathlib import Path

DIR = Path(__file__).resolve().parent


def load(name: str):
    return json.loads((DIR / name).read_text())
