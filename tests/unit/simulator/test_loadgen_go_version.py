"""The Go that `make install` installs on a machine without one (Debian 12's golang-go) can build the load
generator: the `go` line of simulator/loadgen/go.mod (the oldest Go that builds it, simulator/README.md)
names the version scripts/install.sh declares for that package, and the install step asks for the
package exactly when no Go is found where scripts/test.sh and simulator/loadgen.py look."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _go_mod_line() -> tuple[int, ...]:
    found = re.search(r"^go (\d+\.\d+(?:\.\d+)?)$", (REPO / "simulator/loadgen/go.mod").read_text(), re.M)
    assert found, "simulator/loadgen/go.mod has no go line"
    return _version(found.group(1))


def _install_script() -> str:
    return (REPO / "scripts/install.sh").read_text()


def test_go_mod_line_is_the_go_of_the_debian_package_make_install_installs() -> None:
    script = _install_script()
    package = re.search(r"^GO_DEBIAN_PACKAGE=(\S+)$", script, re.M)
    version = re.search(r"^GO_DEBIAN_VERSION=(\S+)$", script, re.M)
    assert package and version and package.group(1) == "golang-go"
    # Not newer: Debian's Go could not build it. Not older: the line would claim a Go never tried.
    assert _go_mod_line() == _version(version.group(1))


def test_make_install_asks_for_go_only_when_no_go_is_found() -> None:
    script = _install_script()
    assert re.search(r"^install:\n\t@scripts/install\.sh$", (REPO / "Makefile").read_text(), re.M)
    line = next(line for line in script.splitlines() if 'missing+=("$GO_DEBIAN_PACKAGE")' in line)
    # the places scripts/test.sh looks for Go: on PATH, then /usr/local/go
    assert line.startswith("command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] ||"), line
    test_sh = (REPO / "scripts/test.sh").read_text()
    assert 'GO="$(command -v go || true)"' in test_sh and "/usr/local/go/bin/go" in test_sh
