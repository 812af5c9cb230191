"""The screen stays awake while a table is open (issue 43), headless Chromium.

On a secure page (http://127.0.0.1 counts as one) the Screen Wake Lock API
is asked for; on a plain-http page of the home network there is no such API
(stubbed away here, as a phone on http://192.168.x.y sees it) and the silent
looping video plays instead. Both let go when the game ends, when the switch
is turned off (remembered on the phone) and while the page is hidden.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.end_games import act

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = ["Ana", "Ben"]

# Every wake lock the page is granted, kept where the test can look at it.
WATCH_LOCKS = """
window.__locks = [];
if (window.WakeLock) {
  const request = WakeLock.prototype.request;
  WakeLock.prototype.request = function (type) {
    return request.call(this, type).then((lock) => { window.__locks.push(lock); return lock; });
  };
}
"""

# What a page served over plain http on the home network has: no wake lock API.
NO_WAKE_LOCK_API = "delete Navigator.prototype.wakeLock;"

LOCKS_HELD = "window.__locks.filter((lock) => !lock.released).length"
VIDEO_PLAYING = """() => {
  const video = document.querySelector('video.awake-video');
  return !!video && !video.paused && video.currentTime > 0;
}"""
VIDEO_STOPPED = """() => {
  const video = document.querySelector('video.awake-video');
  return !!video && video.paused;
}"""


@pytest.fixture
def pad(live_server):
    store = live_server.store
    table = store.create_table("scorepad", PLAYERS, {"lowest_wins": False})
    act(store, table, {"type": "AddRound", "scores": [3, 4]})
    return table


def open_table(new_phone, live_server, table, *scripts: str):
    page = new_phone()
    for script in scripts:
        page.add_init_script(script)
    page.goto(f"{live_server.url}/t/{table.token}")
    return page


def finish(live_server, table) -> None:
    """Another phone ends the game; this one gets the end screen pushed."""
    act(live_server.store, table, {"type": "Finish"})


def test_a_secure_page_holds_a_wake_lock_until_the_game_ends(live_server, new_phone, pad):
    page = open_table(new_phone, live_server, pad, WATCH_LOCKS)
    assert page.evaluate("window.isSecureContext")
    switch = page.get_by_role("switch", name="Keep this screen on")
    expect(switch).to_be_visible()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(page.locator("html")).to_have_attribute("data-awake", "lock")
    assert page.evaluate(LOCKS_HELD) == 1
    expect(page.locator("#awake-say")).to_contain_text("stays awake")
    assert page.locator("video.awake-video").count() == 0  # no video where the API works

    finish(live_server, pad)
    expect(page.locator("#board .end")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-awake", "off")
    page.wait_for_function(f"{LOCKS_HELD} === 0")
    expect(page.locator("#awake-say")).to_contain_text("game is over")

    # Undo reopens the game: the screen is held again.
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#board .end")).to_have_count(0)
    expect(page.locator("html")).to_have_attribute("data-awake", "lock")
    assert page.evaluate(LOCKS_HELD) == 1


def test_the_switch_lets_go_and_the_phone_remembers_it(live_server, new_phone, pad):
    page = open_table(new_phone, live_server, pad, WATCH_LOCKS)
    expect(page.locator("html")).to_have_attribute("data-awake", "lock")
    switch = page.get_by_role("switch", name="Keep this screen on")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(page.locator("html")).to_have_attribute("data-awake", "off")
    page.wait_for_function(f"{LOCKS_HELD} === 0")
    expect(page.locator("#awake-say")).to_contain_text("Off")
    # Remembered on this phone: the next table page starts with it off.
    page.reload()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(page.locator("html")).to_have_attribute("data-awake", "off")
    assert page.evaluate("window.__locks.length") == 0
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(page.locator("html")).to_have_attribute("data-awake", "lock")
    assert page.evaluate(LOCKS_HELD) == 1


def test_a_hidden_page_lets_go_and_takes_it_again_when_shown(live_server, new_phone, pad):
    page = open_table(new_phone, live_server, pad, WATCH_LOCKS)
    expect(page.locator("html")).to_have_attribute("data-awake", "lock")
    hide = """(hidden) => {
      Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});
      Object.defineProperty(document, 'visibilityState',
        {value: hidden ? 'hidden' : 'visible', configurable: true});
      document.dispatchEvent(new Event('visibilitychange'));
    }"""
    page.evaluate(hide, True)
    expect(page.locator("html")).to_have_attribute("data-awake", "off")
    page.wait_for_function(f"{LOCKS_HELD} === 0")
    page.evaluate(hide, False)
    expect(page.locator("html")).to_have_attribute("data-awake", "lock")
    assert page.evaluate(LOCKS_HELD) == 1


def test_plain_http_plays_the_silent_video_until_the_game_ends(live_server, new_phone, pad):
    page = open_table(new_phone, live_server, pad, NO_WAKE_LOCK_API)
    assert page.evaluate("'wakeLock' in navigator") is False
    awake = page.locator("html")
    expect(awake).to_have_attribute("data-awake", re.compile("^(video|tap)$"))
    # The browser may want a tap before it plays sound; then the page says
    # so, and the first tap anywhere starts it.
    if awake.get_attribute("data-awake") == "tap":
        expect(page.locator("#awake-say")).to_contain_text("Tap anywhere")
        page.locator(".who-bar summary").click()
        expect(awake).to_have_attribute("data-awake", "video")
    page.wait_for_function(VIDEO_PLAYING)
    video = page.locator("video.awake-video")
    assert video.evaluate("(v) => v.loop && !v.muted && v.volume > 0")  # audible: Chromium holds it
    assert video.evaluate("(v) => v.currentSrc.includes('/static/awake')")  # served by the app
    expect(page.locator("#awake-say")).to_contain_text("stays awake")

    finish(live_server, pad)
    expect(page.locator("#board .end")).to_be_visible()
    expect(awake).to_have_attribute("data-awake", "off")
    page.wait_for_function(VIDEO_STOPPED)


def test_plain_http_switch_off_stops_the_video(live_server, new_phone, pad):
    page = open_table(new_phone, live_server, pad, NO_WAKE_LOCK_API)
    awake = page.locator("html")
    switch = page.get_by_role("switch", name="Keep this screen on")
    switch.click()  # a tap: the video may start first if it waited for one
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(awake).to_have_attribute("data-awake", "off")
    page.wait_for_function(
        "() => { const v = document.querySelector('video.awake-video'); return !v || v.paused; }"
    )
    switch.click()
    expect(awake).to_have_attribute("data-awake", "video")
    page.wait_for_function(VIDEO_PLAYING)
    switch.click()
    expect(awake).to_have_attribute("data-awake", "off")
    page.wait_for_function(VIDEO_STOPPED)


# A browser that plays sound only after a tap on the page (autoplay rules).
SOUND_AFTER_A_TAP = """
(() => {
  let tapped = false;
  addEventListener('pointerdown', () => { tapped = true; }, true);
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () {
    if (!tapped) return Promise.reject(new DOMException('needs a tap', 'NotAllowedError'));
    return play.call(this);
  };
})();
"""


def test_plain_http_asks_for_a_tap_when_the_browser_wants_one(live_server, new_phone, pad):
    page = new_phone(shared=False)
    page.add_init_script(NO_WAKE_LOCK_API)
    page.add_init_script(SOUND_AFTER_A_TAP)
    page.goto(f"{live_server.url}/t/{pad.token}")
    awake = page.locator("html")
    expect(awake).to_have_attribute("data-awake", "tap")
    expect(page.locator("#awake-say")).to_contain_text("Tap anywhere on the page once")
    page.locator(".topbar-title").tap()  # any tap, not the switch
    expect(awake).to_have_attribute("data-awake", "video")
    page.wait_for_function(VIDEO_PLAYING)
