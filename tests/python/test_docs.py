"""docs/python.md's example runs from the repository's folder and prints what the page shows
(the ```python block, then the ```text block after it)."""

import contextlib
import io
import os
import re

SOURCE = os.environ["WAITROOM_SOURCE_DIR"]


def test_the_example_prints_what_the_page_shows(monkeypatch):
    with open(os.path.join(SOURCE, "docs", "python.md"), encoding="utf-8") as f:
        page = f.read()
    m = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", page, re.S)
    assert m, "docs/python.md: no ```python block followed by a ```text block"
    code, shown = m.group(1), m.group(2)
    monkeypatch.chdir(SOURCE)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    assert out.getvalue() == shown
