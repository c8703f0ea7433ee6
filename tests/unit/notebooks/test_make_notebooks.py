"""notebooks/make_notebooks.py regenerates the analyst notebooks beside itself, wherever the repository is
checked out: the files it writes are the committed ones (same cells, same metadata), so an edit to the cell
text and the committed notebook cannot drift apart."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


def test_make_notebooks_writes_the_committed_notebooks_beside_the_script(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOKS / "make_notebooks.py", tmp_path / "make_notebooks.py")
    done = subprocess.run(
        [sys.executable, "make_notebooks.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    committed = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    assert sorted(path.name for path in tmp_path.glob("*.ipynb")) == committed
    for name in committed:
        written = nbformat.read(tmp_path / name, as_version=4)
        kept = nbformat.read(NOTEBOOKS / name, as_version=4)
        assert [(cell.cell_type, cell.source) for cell in written.cells] == [
            (cell.cell_type, cell.source) for cell in kept.cells
        ], name
        assert written.metadata == kept.metadata, name
