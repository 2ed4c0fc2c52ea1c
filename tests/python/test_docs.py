"""docs/python.md's example runs and prints what the page shows (the ```python block, then the
```text block after it), and the picture it saves is not blank. It runs in a folder of its own
that sees the repository's scenarios/, so nothing is written into the source tree."""

import contextlib
import io
import os
import re

SOURCE = os.environ["WAITROOM_SOURCE_DIR"]


def test_the_example_prints_what_the_page_shows(monkeypatch, tmp_path):
    with open(os.path.join(SOURCE, "docs", "python.md"), encoding="utf-8") as f:
        page = f.read()
    m = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", page, re.S)
    assert m, "docs/python.md: no ```python block followed by a ```text block"
    code, shown = m.group(1), m.group(2)
    os.symlink(os.path.join(SOURCE, "scenarios"), tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    assert out.getvalue() == shown
    # A PNG (its signature) whose pixels are not all one colour.
    png = tmp_path / "clinic_p95.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image
    pixels = matplotlib.image.imread(str(png))
    assert pixels.reshape(-1, pixels.shape[-1]).std(axis=0).max() > 0.05
