"""Refresh the explorer's vendored libraries from the npm registry (a maintainer's command; nothing
runs it at install or at run time):

    .venv/bin/python -m simnode.api.explorer.vendor

Each library is fetched at its pinned version with `npm pack` (npm checks the tarball's integrity
against the registry), and only its dist files and license are copied into static/vendor/<name>/,
with a VERSION file. A `//# sourceMappingURL=` comment is dropped: the maps are not shipped, and a
browser with developer tools open would ask for them (a failed request). To upgrade, change a pin
below, run the command, look at the explorer and the docs page, and commit static/vendor/.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VENDOR = Path(__file__).resolve().parent / "static" / "vendor"

# npm package -> (pinned version, folder under static/vendor, files of its package to copy)
PINNED: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "uplot": ("1.6.32", "uplot", ("dist/uPlot.iife.min.js", "dist/uPlot.min.css", "LICENSE")),
    "swagger-ui-dist": ("5.35.0", "swagger-ui",
                        ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-bundle.js.LICENSE.txt", "LICENSE",
                         "NOTICE")),
}

_SOURCE_MAP = re.compile(rb"\n?(//# sourceMappingURL=\S+|/\*# sourceMappingURL=\S+?\s*\*/)\s*$")


def vendor(name: str, version: str, folder: str, files: tuple[str, ...], work: Path) -> None:
    out = subprocess.run(["npm", "pack", f"{name}@{version}", "--silent", "--pack-destination", str(work)],
                         check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    dest = VENDOR / folder
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    with tarfile.open(work / out) as tar:
        for path in files:
            member = tar.extractfile(f"package/{path}")
            if member is None:
                raise SystemExit(f"{name}@{version} has no {path}")
            data = member.read()
            if path.endswith((".js", ".css")):
                data = _SOURCE_MAP.sub(b"\n", data)
            (dest / Path(path).name).write_bytes(data)
    (dest / "VERSION").write_text(f"{name}@{version}\n")
    print(f"{name}@{version} -> {dest.relative_to(VENDOR.parents[3])}: {', '.join(Path(p).name for p in files)}")


def main() -> int:
    if shutil.which("npm") is None:
        print("npm is needed to fetch the vendored libraries (apt-get install npm)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for name, (version, folder, files) in PINNED.items():
            vendor(name, version, folder, files, Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
