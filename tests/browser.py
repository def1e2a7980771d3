"""A headless Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe:
JSON messages ended by a NUL byte on file descriptors 3 and 4), with nothing to install beyond
the browser: open a page at a width, run a script in it, click, take a screenshot of the page or
of one element. The report's browser tests use it, and the screenshots of docs/report.md are
taken with it:

    python -m tests.browser report.html docs/img/report.png --width 1280 --height 900
    python -m tests.browser report.html shot.png --element '#d0-q0' --open 'details.disputed'
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class BrowserError(RuntimeError):
    """The browser answered an error, or did not answer in time."""


class Page:
    """One page in a headless browser of its own (a context manager: the browser ends with it)."""

    def __init__(self, url: str, *, width: int = 1280, height: int = 900, timeout: float = 30) -> None:
        import fcntl  # POSIX: the pipes are handed to the browser as descriptors 3 and 4

        assert BROWSER is not None, "no Chromium installed"
        to_browser, ours_out = os.pipe()  # our end writes ours_out, the browser reads fd 3
        ours_in, from_browser = os.pipe()  # the browser writes fd 4, our end reads ours_in
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="humanjudge-browser-")

        def as_3_and_4() -> None:  # in the child, before its other descriptors are closed
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [
                BROWSER,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(3, 4),
            preexec_fn=as_3_and_4,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.out, self.inp = os.fdopen(ours_out, "wb", buffering=0), os.fdopen(ours_in, "rb", buffering=0)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(f"{domain}.enable")
        self.resize(width, height)
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for stream in (self.out, self.inp):
            stream.close()
        self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its answer (events met meanwhile are kept)."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        while True:
            found = self._read()
            if found.get("id") == self.next_id:
                if "error" in found:
                    raise BrowserError(f"{method}: {found['error']}")
                return found.get("result", {})  # type: ignore[no-any-return]
            self.events.append(found)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the page."""
        return self.send(method, self.session, **params)

    def wait_for(self, event: str) -> dict[str, Any]:
        while True:
            for k, found in enumerate(self.events):
                if found.get("method") == event:
                    del self.events[k]
                    return found
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        end = time.monotonic() + self.timeout
        while b"\0" not in self.buffer:
            if time.monotonic() > end:
                raise BrowserError("the browser did not answer")
            chunk = self.inp.read(1 << 16)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)  # type: ignore[no-any-return]

    def resize(self, width: int, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def run(self, script: str) -> Any:
        """The value of a script (an expression, or a function body's `return` in an IIFE)."""
        found = self.call("Runtime.evaluate", expression=script, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in found:
            raise BrowserError(f"the script failed: {found['exceptionDetails']}")
        return found["result"].get("value")

    def errors(self) -> list[dict[str, Any]]:
        """The exceptions the page threw and the errors it logged so far."""
        return [
            e
            for e in self.events
            if e.get("method") == "Runtime.exceptionThrown"
            or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")
        ]

    def screenshot(self, target: Path, element: str | None = None) -> None:
        """A PNG of the viewport, or of the element a CSS selector names (scrolled into view)."""
        params: dict[str, Any] = {"format": "png"}
        if element is not None:
            box = self.run(
                f"(() => {{ const e = document.querySelector({json.dumps(element)}); e.scrollIntoView();"
                " const r = e.getBoundingClientRect();"
                " return [r.x + window.scrollX, r.y + window.scrollY, r.width, r.height]; })()"
            )
            params["clip"] = {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}
            params["captureBeyondViewport"] = True
        found = self.call("Page.captureScreenshot", **params)
        target.write_bytes(base64.b64decode(found["data"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--element", help="a CSS selector: the screenshot of that element only")
    parser.add_argument("--open", help="a CSS selector of <details> to open first")
    args = parser.parse_args()
    with Page(args.page.resolve().as_uri(), width=args.width, height=args.height) as page:
        if args.open:
            page.run(f"document.querySelectorAll({json.dumps(args.open)}).forEach(d => d.open = true)")
        page.screenshot(args.png, args.element)


if __name__ == "__main__":
    main()
