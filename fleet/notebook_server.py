"""The analysts' JupyterLab under ``fleet up``: ``notebooks/`` on the lake, 127.0.0.1 only, with a token.

The token is made once (``<var>/notebooks.token``, mode 0600) and kept across starts; it reaches JupyterLab
through its config file (``<var>/jupyter/jupyter_server_config.json``, 0600), never the command line, which
every local user can read in the process list. Kernels inherit ``FLEET_REPORT_LAKE_DIR`` (the lake), so
``notebooks/lake.py`` opens the same lake the reports write.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

from fleet.settings import REPO_ROOT, ReportSettings, StackSettings, report_lake_dir
from fleet.supervisor import ChildSpec, Health

NOTEBOOKS_DIR = REPO_ROOT / "notebooks"


def notebook_token(stack: StackSettings | None = None) -> str:
    """The JupyterLab token of this installation (made on first use, then read back)."""
    path = (stack or StackSettings()).var_dir / "notebooks.token"
    if path.is_file() and (token := path.read_text().strip()):
        return token
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token


def server_config_path(stack: StackSettings | None = None) -> Path:
    return (stack or StackSettings()).var_dir / "jupyter" / "jupyter_server_config.json"


def write_server_config(reports: ReportSettings | None = None, stack: StackSettings | None = None) -> Path:
    """JupyterLab's config file: loopback only (whoever reaches it runs code as this user), the token, the
    notebooks folder as its root, no browser; returns its path."""
    reports, stack = reports or ReportSettings(), stack or StackSettings()
    path = server_config_path(stack)
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {
        "ServerApp": {"ip": "127.0.0.1", "port": reports.notebook_server_port, "port_retries": 0,
                      "open_browser": False, "root_dir": str(NOTEBOOKS_DIR), "allow_remote_access": False,
                      # this machine's `make up` runs as root (the PostgreSQL it starts runs as postgres)
                      "allow_root": os.geteuid() == 0},
        "IdentityProvider": {"token": notebook_token(stack)},
        "LabServerApp": {"open_browser": False},
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(config, out, indent=1)
    return path


def server_env(reports: ReportSettings | None = None, stack: StackSettings | None = None) -> dict[str, str]:
    """What the server's environment adds: the lake for its kernels, its runtime files under var/."""
    stack = stack or StackSettings()
    return {"FLEET_REPORT_LAKE_DIR": str(report_lake_dir(reports, stack)),
            "JUPYTER_RUNTIME_DIR": str(stack.var_dir / "jupyter" / "runtime"), "MPLBACKEND": "Agg"}


def notebook_server_specs(reports: ReportSettings | None = None) -> list[ChildSpec]:
    """The JupyterLab child of ``fleet up`` (none when FLEET_REPORT_NOTEBOOK_SERVER_ENABLED is false); its
    config file is written at start (``write_server_config``)."""
    reports = reports or ReportSettings()
    if not reports.notebook_server_enabled:
        return []
    port = reports.notebook_server_port
    config = server_config_path()
    return [ChildSpec("notebooks", "jupyterlab",
                      [str(Path(sys.executable).parent / "jupyter-lab"), f"--config={config}"],
                      Health(tcp_port=port), port, "FLEET_REPORT_NOTEBOOK_SERVER_PORT", start_timeout_s=120)]


def notebook_note(port: int, stack: StackSettings | None = None) -> str:
    """The status table's line: the URL with its token (the demo's login is printed there too)."""
    return (f"notebooks: http://127.0.0.1:{port}/lab?token={notebook_token(stack)}  (JupyterLab, 127.0.0.1 only;"
            " rendered pages in the console under 报表 > 分析笔记本)")
