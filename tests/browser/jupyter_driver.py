"""Driving the real Jupyter front ends from the browser tests: a server, a notebook tab, an explorer.

`JupyterServer` runs ``jupyter lab`` or ``jupyter notebook`` from this Python environment (so the
kernel imports the same specdec) on 127.0.0.1, at a free port, with a random token and a private
settings folder. `Frontend` is one browser page showing that server; it opens a notebook as a
`NotebookTab`, which runs every cell the way the Run menu does and reads what the page shows. Each
explorer on the page is an `ExplorerView`: its controls, its readout text and its picture, found in
the DOM the way a learner finds them, by their labels.

Everything goes through ``window.jupyterapp``, which both front ends expose when started with
``expose_app_in_browser``: the same commands the menus run, and the same notebook model they edit.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

#: What Binder runs once when it builds the image.
BINDER_POST_BUILD = Path(__file__).resolve().parents[2] / "binder" / "postBuild"

#: Debian's Chromium; Playwright's own browser downloads are not used.
CHROMIUM = Path("/usr/bin/chromium")
#: Flags for a headless run as root in a container, with nothing fetched from the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

def browser_unavailable(reason: str):
    """Skip a test that needs the browser, or fail it under CI=true, where a missing browser is a broken setup."""
    import pytest

    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the browser suite to run", pytrace=False)
    pytest.skip(reason)


def require_chromium() -> None:
    """`browser_unavailable` unless pip's Playwright imports and Debian's Chromium is installed."""
    try:
        import playwright  # noqa: F401
    except ImportError as error:
        browser_unavailable(f"playwright is not importable: {error}")
    if not CHROMIUM.exists():
        browser_unavailable(f"no Chromium at {CHROMIUM}: install Debian's (apt-get install -y chromium)")


#: How long a widget may show "Loading widget..." before the test calls it broken.
WIDGET_RENDER_SECONDS = 15
#: How long one control change may take to reach the readout and the picture.
REDRAW_SECONDS = 30
#: How long running every cell of one notebook may take.
RUN_ALL_SECONDS = 180

# The settings each front end needs: the app object on `window` for the tests, and no requests to
# the internet for news or update checks.
_APP_ARGS = {
    "lab": [
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ],
    "notebook": ["--JupyterNotebookApp.expose_app_in_browser=True"],
}


#: Uncaught errors the front ends themselves raise, not caused by this project: (app, message, where).
#: Notebook 7: its keyboard-shortcut settings handler races the lazy loading of plugins (an upstream bug).
KNOWN_PAGE_ERRORS = [
    ("notebook", "Cannot read properties of undefined (reading 'schema')", "/static/notebook/notebook_core."),
]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class JupyterServer:
    """``jupyter lab`` or ``jupyter notebook`` serving `root`, in its own process group.

    Parameters
    ----------
    app : {"lab", "notebook"}
    root : Path
        The folder the server shows (the tests give it a temporary copy of notebooks/).
    home : Path
        A private folder for its settings, workspaces, runtime files and log.
    as_binder : bool
        Configure JupyterLab the way Binder's image is (the labextension commands of binder/postBuild,
        applied to the private configuration), instead of answering its news question in the settings.
    """

    def __init__(self, app: str, root: Path, home: Path, as_binder: bool = False):
        if app not in _APP_ARGS:
            raise ValueError(f"app must be 'lab' or 'notebook', got {app!r}")
        self.app, self.root, self.home = app, Path(root), Path(home)
        self.as_binder = as_binder
        self.post_build = BINDER_POST_BUILD
        self.token = secrets.token_hex(24)
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self.log_path = self.home / f"jupyter-{app}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "") -> str:
        """The address of `path` on this server, with the token that logs the browser in."""
        separator = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{separator}token={self.token}"

    def start(self, timeout: float = 90) -> None:
        """Start the server and wait until its API answers; a port taken meanwhile is retried."""
        for _attempt in range(3):
            self._launch(free_port())
            if self._wait_until_ready(timeout):
                return
            self.stop()
        raise RuntimeError(f"jupyter {self.app} did not start; the end of its log:\n{self.log_tail()}")

    def _launch(self, port: int) -> None:
        self.port = port
        env = dict(os.environ)
        # A private Jupyter and IPython configuration, so that the user's settings, workspaces and
        # startup files neither change what the tests see nor get changed by them. Extensions and
        # kernels installed in this environment (sys.prefix) are still found.
        for variable, folder in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                                 ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
            env[variable] = str(self.home / folder)
        env.pop("JUPYTER_PATH", None)
        command = [
            sys.executable, "-m", "jupyter", self.app,
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.allow_root=True",
            *(_APP_ARGS[self.app] if not self.as_binder else _APP_ARGS[self.app][:1]),
        ]
        if self.app == "lab":
            command += [f"--LabApp.user_settings_dir={self.home / 'settings'}",
                        f"--LabApp.workspaces_dir={self.home / 'workspaces'}"]
            if self.as_binder:
                self._apply_binder_post_build(env)
            else:
                self._write_lab_settings()
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            # A new session makes the server the leader of a process group that also holds its
            # kernels, so that `stop` can end all of them at once.
            self.process = subprocess.Popen(command, cwd=self.root, env=env, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def _apply_binder_post_build(self, env: dict) -> None:
        # binder/postBuild changes the environment (sys.prefix); here each of its `jupyter
        # labextension` commands is applied to this server's private configuration instead.
        commands = [shlex.split(line) for line in self.post_build.read_text().splitlines()
                    if line.startswith("jupyter labextension ")]
        if not commands:
            raise RuntimeError(f"{self.post_build} has no `jupyter labextension` command to apply")
        for words in commands:
            subprocess.run([sys.executable, "-m", "jupyter", *words[1:], "--level=user"], env=env, check=True,
                           capture_output=True, text=True)

    def _write_lab_settings(self) -> None:
        # Answer "never" to JupyterLab's question about fetching news, so that its toast neither
        # covers the explorers' screenshots nor makes a request to the internet.
        settings = self.home / "settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True, exist_ok=True)
        notification = settings / "notification.jupyterlab-settings"
        notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))

    def _wait_until_ready(self, timeout: float) -> bool:
        request = urllib.request.Request(f"{self.base_url}/api/status",
                                         headers={"Authorization": f"token {self.token}"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(request, timeout=2) as response:
                    if response.status == 200:
                        return True
            except OSError:
                pass
            time.sleep(0.2)
        return False

    def stop(self, grace: float = 10) -> None:
        """End the server and its kernels: SIGTERM to the process group, SIGKILL after `grace` seconds."""
        process, self.process = self.process, None
        if process is None:
            return
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            try:
                process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        # Kernels left in the group after the server exited (the group id is the server's pid).
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def copy_notebooks(source: Path, destination: Path) -> Path:
    """A copy of the notebooks folder without checkpoints: the server's root, which it may write to."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return destination


# --- the page -------------------------------------------------------------------------------------

_CURRENT = "window.jupyterapp.shell.currentWidget"

_WAIT_FOR_APP = """async () => {
    await window.jupyterapp.started;
    await window.jupyterapp.restored;
}"""

_WAIT_FOR_NOTEBOOK = f"""async () => {{
    const panel = {_CURRENT};
    await panel.context.ready;
    await panel.sessionContext.ready;
    return panel.context.path;
}}"""

_KERNEL_IDLE = f"""() => {{
    const panel = {_CURRENT};
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    return Boolean(kernel) && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
}}"""

_CELL_REPORT = f"""() => {{
    const panel = {_CURRENT};
    const cells = [];
    panel.content.widgets.forEach((cell, index) => {{
        if (cell.model.type !== 'code') {{ return; }}
        const outputs = cell.model.outputs.toJSON();
        cells.push({{
            index,
            source: cell.model.sharedModel.getSource().slice(0, 120),
            executionCount: cell.model.executionCount,
            errors: outputs.filter(o => o.output_type === 'error').map(o => `${{o.ename}}: ${{o.evalue}}`),
            stderr: outputs.filter(o => o.output_type === 'stream' && o.name === 'stderr')
                           .map(o => [].concat(o.text).join('').slice(0, 500)),
            widgetViews: outputs.filter(o => o.data && o.data['application/vnd.jupyter.widget-view+json']).length,
        }});
    }});
    return cells;
}}"""

_RENDERED_PROBLEMS = f"""() => {{
    const node = {_CURRENT}.node;
    const problems = [];
    for (const output of node.querySelectorAll('.jp-OutputArea-output')) {{
        const text = output.textContent;
        if (text.includes('Error displaying widget') || text.includes('Loading widget...')) {{
            problems.push(text.trim().slice(0, 200));
        }}
    }}
    const stderr = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]';
    for (const output of node.querySelectorAll(stderr)) {{
        problems.push('stderr shown: ' + output.textContent.trim().slice(0, 300));
    }}
    // A widget output's node holds the rendered view, a widget box, as its direct child.
    const views = [...node.querySelectorAll('.jp-OutputArea-output')]
        .filter(output => output.querySelector(':scope > .jupyter-widgets'));
    return {{problems, views: views.length}};
}}"""

# An explorer is a VBox whose last child is an HBox holding its picture (an <img>) and its
# readout (an HTML widget); its first child is the header with the title. The tests mark each part
# with a data attribute so that Playwright locators can find it again.
_MARK_EXPLORERS = f"""() => {{
    const node = {_CURRENT}.node;
    const explorers = [...node.querySelectorAll('.specdec-explorer')];
    return explorers.map((box, index) => {{
        box.dataset.explorer = String(index);
        box.querySelector('.specdec-picture').dataset.explorerPart = 'figure';
        box.querySelector('.specdec-readout').dataset.explorerPart = 'readout';
        for (const label of box.querySelectorAll('.widget-label')) {{
            const text = label.textContent.trim();
            if (text && label.parentElement !== box) {{ label.parentElement.dataset.control = text; }}
        }}
        for (const button of box.querySelectorAll('button.jupyter-button')) {{
            const text = button.textContent.trim();
            if (text) {{ button.dataset.control = text; }}
        }}
        return box.querySelector('.specdec-title').textContent.trim();
    }});
}}"""

_CONTROL_VALUES = """(box) => {
    const values = {};
    for (const control of box.querySelectorAll('[data-control]')) {
        const readout = control.querySelector('.widget-readout');
        const select = control.querySelector('select');
        const checkbox = control.querySelector('input[type=checkbox]');
        const input = control.querySelector('input, textarea');
        let value = null;
        if (readout) { value = readout.textContent.trim(); }
        else if (select) { value = select.selectedOptions.length ? select.selectedOptions[0].textContent : null; }
        else if (checkbox) { value = checkbox.checked; }
        else if (input) { value = input.value; }
        values[control.dataset.control] = value;
    }
    return values;
}"""

# The picture's bytes, hashed: a new src with the same pixels would not count as a redraw.
_FIGURE_STATE = """async (box) => {
    const img = box.querySelector('[data-explorer-part=figure]');
    const readout = box.querySelector('[data-explorer-part=readout]');
    let digest = '';
    if (img.src) {
        const bytes = await (await fetch(img.src)).arrayBuffer();
        digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
            .map(b => b.toString(16).padStart(2, '0')).join('');
    }
    return {src: img.src, digest, readout: readout.innerText, width: img.naturalWidth};
}"""

# Wait until the page's layout has settled: the window's and every output area's width the same over
# a few frames (JupyterLab lays its panels out in animation frames after a resize or a sidebar change).
_LAYOUT_SETTLED = f"""async () => {{
    const frame = () => new Promise(done => {{
        requestAnimationFrame(() => done());
        setTimeout(done, 100);
    }});
    const widths = () => {{
        const node = {_CURRENT} ? {_CURRENT}.node : document.body;
        const outputs = [...node.querySelectorAll('.jp-OutputArea-output')];
        return [window.innerWidth, node.getBoundingClientRect().width,
                ...outputs.map(output => output.getBoundingClientRect().width)].join(' ');
    }};
    let last = null, same = 0;
    for (let i = 0; i < 200 && same < 3; i++) {{
        await frame();
        const now = widths();
        same = now === last ? same + 1 : 0;
        last = now;
    }}
    return same >= 3;
}}"""

_SHOW_SIDEBAR = """(open) => {
    if (open) { window.jupyterapp.shell.activateById('filebrowser'); }
    else { window.jupyterapp.shell.collapseLeft(); }
}"""

_CLOSE_NOTEBOOK = f"""async () => {{
    const panel = {_CURRENT};
    if (!panel || !panel.sessionContext) {{ return; }}
    await panel.sessionContext.shutdown();
    panel.context.model.dirty = false;
    panel.dispose();
}}"""


def parse_shown_value(text):
    """A control's value as the page shows it: a number when it reads as one ("100,000" too)."""
    if not isinstance(text, str):
        return text
    text = text.replace("\xa0", " ")  # dropdowns show their options with no-break spaces
    plain = text.replace(",", "").strip()
    if re.fullmatch(r"[+-]?\d+", plain):
        return int(plain)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)(e[+-]?\d+)?", plain, flags=re.IGNORECASE):
        return float(plain)
    return text


def normalised_text(text: str) -> str:
    """Whitespace runs made single spaces, so that line breaks in the layout do not matter."""
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


class Frontend:
    """One browser page showing JupyterLab or Notebook 7 from `server`.

    `viewport` is in CSS pixels; `device_scale_factor` 1.5 with a viewport of 853×480 is a 1280×720
    screen at browser zoom 150%. With `sidebar`, JupyterLab keeps its file browser open, as it starts.
    """

    def __init__(self, browser, server: JupyterServer, viewport=(1600, 1600), device_scale_factor: float = 1,
                 sidebar: bool = False):
        self.server = server
        self.sidebar = sidebar
        self.viewport = tuple(viewport)
        self.page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]},
                                     device_scale_factor=device_scale_factor)
        self.page.set_default_timeout(60_000)
        self.page_errors: list[str] = []
        self.page.on("pageerror", lambda error: self.page_errors.append(f"{error.message}\n{error.stack}"))

    def close(self) -> None:
        self.page.close()

    def show_as(self, viewport: tuple[int, int], sidebar: bool) -> None:
        """Resize the page to `viewport` (CSS px) and open or close JupyterLab's file browser, as a
        screen of that size shows the notebook; return once the layout has settled."""
        if self.server.app != "lab":
            raise ValueError("show_as opens and closes JupyterLab's file browser: use it with JupyterLab")
        self.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        self.page.evaluate(_SHOW_SIDEBAR, sidebar)
        self.sidebar = sidebar
        if not self.page.evaluate(_LAYOUT_SETTLED):
            raise TimeoutError(f"the layout did not settle at {viewport} with the file browser "
                               f"{'open' if sidebar else 'closed'}")

    def unexpected_page_errors(self) -> list[str]:
        """Uncaught errors in the page so far, except the front end's own known ones."""
        self.page.evaluate("() => 0")  # the sync API delivers pending page events during a call
        return [error for error in self.page_errors
                if not any(app == self.server.app and message in error and where in error
                           for app, message, where in KNOWN_PAGE_ERRORS)]

    def _load(self, path: str) -> None:
        self.page.goto(self.server.url(path))
        self.page.wait_for_function("() => Boolean(window.jupyterapp)", timeout=90_000)
        self.page.evaluate(_WAIT_FOR_APP)

    @contextmanager
    def notebook(self, path: str, failure_screenshot: Path | None = None):
        """Open the notebook at `path` (relative to the server's root); shut its kernel down after."""
        if self.server.app == "lab":
            if not self._app_loaded():
                # `reset` starts from an empty workspace: no tab of an earlier run is restored.
                self._load("lab?reset")
                if self.sidebar:
                    self.page.evaluate("() => window.jupyterapp.shell.activateById('filebrowser')")
                else:
                    self.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
            self.page.evaluate("async (path) => { await window.jupyterapp.commands.execute("
                               "'docmanager:open', {path, factory: 'Notebook'}); }", path)
        else:
            self._load(f"notebooks/{path}")
        try:
            self.page.wait_for_function(f"() => {_CURRENT} && {_CURRENT}.context "
                                        f"&& {_CURRENT}.context.path === {path!r}")
            self.page.evaluate(_WAIT_FOR_NOTEBOOK)
            tab = NotebookTab(self, path)
            tab.wait_until_idle()
            yield tab
        except BaseException:
            if failure_screenshot is not None:
                failure_screenshot.parent.mkdir(parents=True, exist_ok=True)
                self.page.screenshot(path=str(failure_screenshot), full_page=True)
            raise
        finally:
            self.page.evaluate(_CLOSE_NOTEBOOK)

    def _app_loaded(self) -> bool:
        return bool(self.page.evaluate("() => Boolean(window.jupyterapp)"))


class NotebookTab:
    """The notebook open in the front end: run it, and read its outputs and explorers."""

    def __init__(self, frontend: Frontend, path: str):
        self.frontend = frontend
        self.page = frontend.page
        self.path = path

    def kernel_idle(self) -> bool:
        return bool(self.page.evaluate(_KERNEL_IDLE))

    def wait_until_idle(self, timeout: float = RUN_ALL_SECONDS, settled: float = 0.5) -> None:
        """Wait until the kernel has been idle for `settled` seconds on end."""
        deadline = time.monotonic() + timeout
        idle_since = None
        while time.monotonic() < deadline:
            if self.kernel_idle():
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since >= settled:
                    return
            else:
                idle_since = None
            time.sleep(0.1)
        raise TimeoutError(f"the kernel was still busy after {timeout} s")

    def run_all(self) -> bool:
        """Run every cell as Run > Run All Cells does; False if a cell failed and stopped the run."""
        completed = self.page.evaluate("async () => await window.jupyterapp.commands.execute("
                                       "'notebook:run-all-cells')")
        self.wait_until_idle()
        return completed is not False

    def cells(self) -> list[dict]:
        """Per code cell: its execution count, error outputs, stderr text and widget views."""
        return self.page.evaluate(_CELL_REPORT)

    def rendered_problems(self) -> dict:
        """Widgets not rendered ("Loading widget...", "Error displaying widget") and stderr on screen."""
        return self.page.evaluate(_RENDERED_PROBLEMS)

    def wait_for_widgets(self, timeout: float = WIDGET_RENDER_SECONDS) -> dict:
        """Poll until every widget view has rendered, for up to `timeout` seconds; the last report."""
        deadline = time.monotonic() + timeout
        while True:
            report = self.rendered_problems()
            if not report["problems"] or time.monotonic() > deadline:
                return report
            time.sleep(0.25)

    def explorers(self) -> list["ExplorerView"]:
        titles = self.page.evaluate(_MARK_EXPLORERS)
        return [ExplorerView(self, index, title) for index, title in enumerate(titles)]


class ExplorerView:
    """One explorer as the browser shows it."""

    def __init__(self, tab: NotebookTab, index: int, title: str):
        self.tab, self.index, self.title = tab, index, title
        self.page = tab.page
        self.locator = self.page.locator(f'[data-explorer="{index}"]')

    def __repr__(self) -> str:
        return f"ExplorerView({self.title!r})"

    def control(self, label: str):
        return self.locator.locator(f"[data-control={_css_string(label)}]")

    def control_values(self) -> dict:
        """Label -> value shown, for every labelled control (buttons map to None)."""
        raw = self.locator.evaluate(_CONTROL_VALUES)
        return {label: parse_shown_value(value) for label, value in raw.items()}

    def state(self) -> dict:
        """The readout's text, the picture's src and a digest of the picture's bytes."""
        return self.locator.evaluate(_FIGURE_STATE)

    def perform(self, label: str, action: str) -> None:
        """Do `action` to the control labelled `label`, as a learner would with keyboard or mouse.

        Actions: ``"key:ArrowRight"`` (any key) focuses the slider's handle and presses the key;
        ``"drag:<pixels>"`` drags the slider's handle that far to the right (left if negative);
        ``"click"`` clicks the button; ``"choose:<option text>"`` picks that option in a dropdown.
        """
        control = self.control(label)
        if control.count() != 1:
            known = sorted(self.control_values())
            raise LookupError(f"{self.title!r} has {control.count()} controls labelled {label!r}; "
                              f"its labels are {known}")
        if action.startswith("key:"):
            control.locator(".noUi-handle").first.press(action[len("key:"):])
        elif action.startswith("drag:"):
            handle = control.locator(".noUi-handle").first
            position = handle.get_attribute("aria-valuenow")
            # A press that lands while the page is still laying out is lost (seen once in Notebook 7 on a busy
            # machine): if the handle has not moved, drag once more. A handle that cannot move still fails the
            # caller's check.
            for _ in range(2):
                handle.evaluate("handle => handle.scrollIntoView({block: 'center', inline: 'nearest'})")
                box = handle.bounding_box()
                x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
                self.page.mouse.move(x, y)
                self.page.mouse.down()
                self.page.mouse.move(x + float(action[len("drag:"):]), y, steps=5)
                self.page.mouse.up()
                if handle.get_attribute("aria-valuenow") != position:
                    break
        elif action == "click":
            control.click()
        elif action.startswith("choose:"):
            wanted = normalised_text(action[len("choose:"):])
            options = [normalised_text(text) for text in control.locator("option").all_text_contents()]
            if wanted not in options:
                raise LookupError(f"{label!r} offers {options}, not {wanted!r}")
            control.locator("select").select_option(index=options.index(wanted))
        else:
            raise ValueError(f"unknown action {action!r}: use 'key:<Key>', 'drag:<pixels>', 'click' "
                             "or 'choose:<option>'")

    def wait_for_redraw(self, before: dict, timeout: float = REDRAW_SECONDS, settled: float = 0.4) -> dict:
        """Wait until both the readout and the picture differ from `before` and the kernel is idle.

        Returns the state once it has stayed the same for `settled` seconds, or the last state seen
        when `timeout` runs out (the caller's assertions then say what did not change).
        """
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            now = self.state()
            changed = now["readout"] != before["readout"] and now["digest"] != before["digest"]
            if now != last:
                last, since = now, time.monotonic()
            elif changed and self.tab.kernel_idle() and time.monotonic() - since >= settled:
                return now
            time.sleep(0.1)
        return last

    def screenshot(self, path: Path) -> None:
        """Save a picture of the explorer, cut to its content (the output area is wider)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.locator.evaluate("box => { box.dataset.width = box.style.width; box.style.width = 'fit-content'; }")
        try:
            self.locator.screenshot(path=str(path), animations="disabled")
        finally:
            self.locator.evaluate("box => { box.style.width = box.dataset.width; delete box.dataset.width; }")


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
