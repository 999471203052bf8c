"""Stand-ins for installing packages without the network: a tiny wheel built here, a throwaway venv that
borrows this interpreter's packages (ipykernel, pip) but installs into its own site-packages, and a
kernelspec that runs it. pip finds the wheel through `PIP_FIND_LINKS` with `PIP_NO_INDEX`."""

from __future__ import annotations

import base64
import hashlib
import json
import site
import sys
import venv
import zipfile
from pathlib import Path


def build_wheel(folder: Path, distribution: str, module: str, version: str = "1.0",
                body: str = "VALUE = 42\n") -> Path:
    """Write `{distribution}-{version}-py3-none-any.whl` (one module, `module/__init__.py`) into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = distribution.replace("-", "_")
    info = f"{stem}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": body,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: ghostbook-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    path = folder / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


def make_kernel_venv(folder: Path) -> Path:
    """A venv without pip of its own that sees this interpreter's site-packages (so ipykernel and pip
    import) yet installs into its own; returns its python."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    own = folder / "lib" / version / "site-packages"
    borrowed = [p for p in site.getsitepackages() if Path(p).is_dir()]
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in borrowed)
    (own / "zz_ghostbook_borrowed.pth").write_text(lines)  # after its own packages on sys.path
    return python


def write_kernelspec(jupyter_path: Path, name: str, argv: list[str], display_name: str | None = None) -> Path:
    """A kernelspec `name` under `jupyter_path`/kernels (point JUPYTER_PATH at `jupyter_path`)."""
    folder = jupyter_path / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    spec = {"argv": [*argv, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": display_name or name, "language": "python"}
    (folder / "kernel.json").write_text(json.dumps(spec))
    return folder
