"""Card motion on a phone (issue #42 item 3: "no frame drops with 6 players on a phone-sized
viewport"): the frames of a table of six while its cards move, beside the same table with motion off.

`manage.py serve --no-demo` (uvicorn and its Celery workers, production settings, a fresh database
of its own) holds a table of a six-seat game: one person at seat 0 and the game's strongest bot in
the five other seats, opened as the lobby opens one. Debian's Chromium shows it at 390 × 844 as a
phone (touch, device scale 3) with its main thread slowed by CDP's `Emulation.setCPUThrottlingRate`
(4 by default: a mid-range phone, DevTools' "4× slowdown"). The bots move through the server's
worker after its BOT_MOVE_DELAY, each move reaching the page over its WebSocket; on the person's
turn the bench takes a legal move from `cardLeagueTable.state.legal` and makes it by clicking, as
the browser tests do (`tests.frontend.players`), until `--moves` moves (every seat's) are played.

A requestAnimationFrame loop in the page records every frame: its time, whether one of motion.js's
flights (a Web Animation on a `.card` or a `.motion-ghost`) ran, and the table's head. A frame is
dropped when it lasts more than 1.5 display intervals (the run's median frame). Three sets of
frames: those with a flight running at their start or end (the frame that draws the board again
and starts the flights counts); those of a move's first 400 ms, from the frame that drew it, with
motion on or off (the like-for-like set); and all. Baseline: a second table, the same number of
moves, Card motion "off" (chosen on the page, as a person would), in the same run just after.

Run: `python -m bench.motion [--game sequence-stacks|split] [--moves 40] [--cpu-throttle 4]
[--bot-delay SECONDS] [--database-url URL] [--redis-url URL] [--trace FILE]`. `--trace` writes a
Chrome performance trace of the motion run (DevTools' Performance panel opens it).
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import median, percentile, print_table  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_motion"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/4"
CHROMIUM = Path("/usr/bin/chromium")
# As the browser tests launch it (tests/frontend/conftest.py).
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PASSWORD = "a long enough passphrase"
SIX_SEAT_GAMES = ("sequence-stacks", "split")
DEVICE_SCALE = 3  # a phone of this viewport (an iPhone 12 to 14) draws three pixels to the CSS pixel
DROPPED = 1.5  # a frame longer than this many display intervals missed at least one
POLL_MS = 100  # the bench's waits poll the page at this interval, not on every frame as by default
POLL_SECONDS = POLL_MS / 1000
AFTER_MOVE_MS = 400  # a move's frames: the flight (260 ms at "normal") and the re-render before it

# Every frame's time, whether one of motion.js's flights (a card's or a card copy's Web Animation)
# ran then, the table's head and the flights started so far (motion.js keeps only its last 200 in
# its own log). Flights are counted as Element.animate starts them and as they end: asking
# document.getAnimations() every frame cost 3 % of the slowed main thread (and it lists CSS
# transitions too, such as a picked card's rise).
RECORD_FRAMES = """
window.benchFrames = [];
window.benchFlights = 0;
let flying = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  const animation = animate.apply(this, args);
  if (this.matches(".card, .motion-ghost")) {
    window.benchFlights += 1;
    flying += 1;
    const landed = () => { flying -= 1; };
    animation.finished.then(landed, landed);
  }
  return animation;
};
requestAnimationFrame(function frame(now) {
  const table = window.cardLeagueTable;
  window.benchFrames.push([now, flying > 0, table ? table.state.seq : 0, window.benchFlights]);
  requestAnimationFrame(frame);
});
"""


def fresh_database(url: str) -> None:
    """Drops and creates the bench's database: no table of an earlier run stays behind."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def start_server(database_url: str, redis_url: str, bot_delay: float | None, folder: str) -> tuple[subprocess.Popen, str]:
    """`manage.py serve --no-demo` on a free port (it migrates, then starts its workers); its base URL."""
    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="server.settings", DATABASE_URL=database_url, REDIS_URL=redis_url,
               DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="127.0.0.1", SECURE_COOKIES="0", LOG_LEVEL="WARNING",
               VAR_DIR=folder, THROTTLE_SIGNUP="1000/hour", THROTTLE_LOGIN="1000/hour", REVIEW_AFTER_MATCH="0")
    if bot_delay is not None:
        env["BOT_MOVE_DELAY"] = str(bot_delay)
    base = f"http://127.0.0.1:{port}"
    log = Path(folder) / "server.log"
    with open(log, "w") as output:
        process = subprocess.Popen([sys.executable, "manage.py", "serve", "--no-demo", "--host", "127.0.0.1",
                                    "--port", str(port)], cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300  # migrating a new database beside a busy machine takes its time
    while True:
        try:
            if httpx.get(f"{base}/api/games", timeout=2).status_code == 200:
                return process, base
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError(f"the server did not come up:\n{log.read_text()[-4000:]}")
        time.sleep(0.3)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def bot_table(base: str, game: str, username: str) -> int:
    """A started table of six, opened as the lobby opens one: `username` (a new account) at seat 0,
    the game's strongest bot in every other seat."""
    import httpx

    with httpx.Client(base_url=base, timeout=60) as api:
        answer = api.post("/api/auth/register", json={"username": username, "password": PASSWORD})
        answer.raise_for_status()
        api.headers["Authorization"] = f"Token {answer.json()['token']}"
        about = next(g for g in api.get("/api/games").json() if g["slug"] == game)
        table = api.post("/api/matches", json={"game": game, "players": 6, "rated": False}).json()
        for seat in range(1, 6):
            api.post(f"/api/matches/{table['id']}/bots", json={"seat": seat, "bot": about["strong_bot"]}).raise_for_status()
        api.post(f"/api/matches/{table['id']}/start").raise_for_status()
        return table["id"]


def open_table(browser, base: str, username: str, match_id: int, throttle: float):
    """The table, logged in, in a phone-sized page whose main thread is slowed `throttle` times."""
    context = browser.new_context(base_url=base, viewport={"width": 390, "height": 844}, device_scale_factor=DEVICE_SCALE,
                                  is_mobile=True, has_touch=True, reduced_motion="no-preference")
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector(".nav-user .user-link")
    page.add_init_script(RECORD_FRAMES)
    page.goto(f"/tables/{match_id}")
    page.wait_for_selector("#table[data-status=running]")
    page.wait_for_selector("#board .felt")
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    return page


def play_moves(page, game: str, moves: int, played) -> None:
    """Lets the bots play and makes the person's moves by clicking until `moves` moves were played
    at the table, or it ended. `played()` counts the table's moves."""
    from tests.frontend.players import choose, perform

    deadline = time.monotonic() + 300
    while played() < moves and time.monotonic() < deadline:
        state = page.evaluate("() => ({seq: cardLeagueTable.state.seq, view: cardLeagueTable.state.view,"
                              " legal: cardLeagueTable.state.legal, table: document.getElementById('table').dataset})")
        if state["table"]["status"] == "finished":
            return
        if state["table"].get("myTurn") != "true":
            time.sleep(POLL_SECONDS)
            continue
        perform(page, game, choose(game, state["view"], state["legal"]))
        page.wait_for_function("(seq) => Number(document.getElementById('table').dataset.seq) > seq",
                               arg=state["seq"], polling=POLL_MS, timeout=60_000)


def frame_figures(frames: list[tuple[float, bool, int, int]], interval: float) -> dict:
    """Frame times (ms) and dropped frames: overall; in the frames after a move reached the board
    (up to AFTER_MOVE_MS after the head moved, with motion on or off); and while a flight ran."""
    parts: dict[str, list[float]] = {"overall": [], "after_move": [], "flying": []}
    moved_at = -float("inf")
    for (before, flying_before, seq_before, _), (now, flying_now, seq_now, _) in zip(frames, frames[1:]):
        if seq_now != seq_before:
            moved_at = before  # the board was drawn again during this frame
        parts["overall"].append(now - before)
        if before - moved_at < AFTER_MOVE_MS:
            parts["after_move"].append(now - before)
        if flying_before or flying_now:
            parts["flying"].append(now - before)

    def figures(times: list[float]) -> dict:
        if not times:
            return {"frames": 0, "dropped": 0, "p50_ms": float("nan"), "p95_ms": float("nan"), "max_ms": float("nan")}
        return {"frames": len(times), "dropped": sum(t > DROPPED * interval for t in times),
                "p50_ms": percentile(times, 0.5), "p95_ms": percentile(times, 0.95), "max_ms": max(times)}

    return {part: figures(times) for part, times in parts.items()}


def measure(browser, base: str, database_url: str, args, setting: str, trace: str | None) -> dict:
    """One table played for `args.moves` moves with Card motion at `setting`: its frames up to the
    next move (the bots may have played on while the bench looked), and the flights in them."""
    import psycopg

    username = f"motion{setting}{time.time_ns() % 10**9:x}"
    match_id = bot_table(base, args.game, username)
    page = open_table(browser, base, username, match_id, args.cpu_throttle)
    with psycopg.connect(database_url, autocommit=True) as db:
        def moves_from(seq: int) -> list[int]:
            """The seq of each move the table has recorded after `seq`."""
            return [row[0] for row in db.execute(
                "SELECT seq FROM games_event WHERE match_id = %s AND type = 'MovePlayed' AND seq > %s ORDER BY seq",
                [match_id, seq])]

        try:
            page.get_by_label("Card motion").select_option(setting)
            if trace:
                browser.start_tracing(page=page, path=trace, screenshots=False)
            page.evaluate("() => { window.benchFrames.length = 0; window.benchFlights = 0; }")
            head = page.evaluate("() => cardLeagueTable.state.seq")
            play_moves(page, args.game, args.moves, lambda: len(moves_from(head)))
            frames = page.evaluate("() => window.benchFrames")
            if trace:
                browser.stop_tracing()
            played = moves_from(head)
        finally:
            page.context.close()
    if len(played) > args.moves:  # the frames from the next move on are not this run's
        frames = [frame for frame in frames if frame[2] < played[args.moves]]
    return {"setting": setting, "match": match_id, "moves": min(len(played), args.moves),
            "seconds": (frames[-1][0] - frames[0][0]) / 1000, "flights": frames[-1][3] - frames[0][3], "frames": frames}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=SIX_SEAT_GAMES, default="sequence-stacks")
    parser.add_argument("--moves", type=int, default=40, help="moves played at the table, every seat's")
    parser.add_argument("--cpu-throttle", type=float, default=4, help="CDP Emulation.setCPUThrottlingRate")
    parser.add_argument("--bot-delay", type=float, default=None, help="BOT_MOVE_DELAY (default: the server's)")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_MOTION_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--trace", help="write a Chrome performance trace of the motion run to this file")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    fresh_database(args.database_url)
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        server, base = start_server(args.database_url, args.redis_url, args.bot_delay, folder)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
                try:
                    for setting in ("normal", "off"):
                        runs.append(measure(browser, base, args.database_url, args, setting,
                                            args.trace if setting == "normal" else None))
                finally:
                    browser.close()
        finally:
            stop(server)
    interval = median([b[0] - a[0] for run in runs for a, b in zip(run["frames"], run["frames"][1:])])
    rows, returned = [], []
    labels = {"flying": "a flight running", "after_move": f"a move's first {AFTER_MOVE_MS} ms", "overall": "all"}
    for run in runs:
        figures = frame_figures(run.pop("frames"), interval)
        returned.append({**run, **figures})
        for part, label in labels.items():
            got = figures[part]
            if not got["frames"]:
                continue  # no flight with motion off
            rows.append([run["setting"], label, run["moves"], f"{run['seconds']:.0f}", run["flights"], got["frames"],
                         got["dropped"], f"{got['dropped'] / got['frames']:.1%}",
                         f"{got['p50_ms']:.1f}", f"{got['p95_ms']:.1f}", f"{got['max_ms']:.1f}"])
    print_table(
        f"Card motion at a table of six ({args.game}, one person and five bots) in Chromium at 390 × 844 as a phone "
        f"(device scale {DEVICE_SCALE}, touch), CPU throttled ×{args.cpu_throttle:g} (CDP Emulation.setCPUThrottlingRate); "
        f"display interval {interval:.1f} ms (the median frame); dropped = a frame over {DROPPED:g} intervals; "
        "a flight running = one of motion.js's card animations ran at the frame's start or end; "
        f"a move's first {AFTER_MOVE_MS} ms = from the frame that drew the board again, with motion on or off; "
        "baseline: Card motion off, same run",
        ["motion", "frames of", "moves", "seconds", "flights", "frames", "dropped", "dropped %", "p50 ms", "p95 ms",
         "max ms"],
        rows,
    )
    return {"game": args.game, "cpu_throttle": args.cpu_throttle, "interval_ms": interval, "runs": returned}


if __name__ == "__main__":
    main()
