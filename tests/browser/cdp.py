"""Headless Debian Chromium driven over the DevTools protocol on a pipe (no network port, no
WebDriver, nothing downloaded): open a page, collect console errors and network requests,
evaluate JavaScript, take a full-page PNG screenshot.

The browser runs in its own process group with a new empty profile; close() (and the context
manager's exit) kills that group by its id and removes the profile, whatever happened."""

import base64
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--force-device-scale-factor=1", "--remote-debugging-pipe",
]


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, executable, timeout_s=60.0):
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="waitroom-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds():
            # The protocol: the browser reads commands on fd 3 and writes replies on fd 4.
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, pass_fds=(3, 4), start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no reply from Chromium in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the pipe (exit code %s)" % self.proc.poll())
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, session, timeout_s):
        deadline = time.monotonic() + timeout_s
        for e in self.events:
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        while True:
            e = self._read_message(deadline)
            self.events.append(e)
            if e.get("method") == method and e.get("sessionId") == session:
                return e

    def open(self, url, width=1000):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                  session=session)
        self.events = [e for e in self.events if e.get("sessionId") != session]
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session, self.timeout_s)
        return session

    def evaluate(self, session, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, session=session)
        if "exceptionDetails" in r:
            raise BrowserError("evaluating %s: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def problems(self, session):
        """Console errors, uncaught exceptions and requests that left the page's own file."""
        out = []
        for e in self.events:
            if e.get("sessionId") != session:
                continue
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s %s" % (d.get("text", ""),
                                                 d.get("exception", {}).get("description", "")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log error: %s" % p["entry"].get("text", ""))
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    out.append("network request: %s" % url)
        return out

    def screenshot(self, session, path):
        metrics = self.send("Page.getLayoutMetrics", session=session)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 16000),
                "scale": 1}
        shot = self.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True, "clip": clip},
                         session=session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def print_pdf(self, session, path, paper=(8.27, 11.69), margin_in=0.4):
        """Prints the page as the browser's print dialog would (beforeprint/afterprint fire),
        on A4 by default, and writes the PDF."""
        pdf = self.send("Page.printToPDF", {
            "paperWidth": paper[0], "paperHeight": paper[1], "marginTop": margin_in,
            "marginBottom": margin_in, "marginLeft": margin_in, "marginRight": margin_in,
            "printBackground": True}, session=session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(pdf["data"]))
