// Leafpile: keep the screen awake while a table is open (issue 43).
// Phones lie on the table for minutes between turns; a dark screen means a
// missed turn. The switch on the table page (#awake-switch) turns this off
// or on for this phone, remembered in localStorage.
//
// Where the page is a secure context (https, or localhost), the Screen Wake
// Lock API holds the screen. The laptop server on the home network is plain
// http://, where browsers offer no such API: there a one-second silent
// video plays in a loop (awake.webm / awake.mp4, served by the app: the
// Content-Security-Policy allows no data: media, so NoSleep.js's inline
// videos could not be used). It is not `muted`: Chromium keeps the display
// awake for a playing video that is audible (has a sound track and volume,
// even if the track is silence) or large on the screen, not for a tiny
// muted one. A browser may only start it after a tap on the page; until
// then the switch says so.
//
// Let go when the game ends (the board shows the end screen), when the
// switch is turned off, and while the page is hidden; taken again when the
// page shows and the game is on (an Undo can reopen it).
//
// The state is said on <html data-awake="...">: "lock" (the Wake Lock API),
// "video" (the fallback playing), "tap" (the fallback waits for a tap),
// "off" (not wanted, the game is over, or the page is hidden), "none" (this
// browser can do neither).
(function () {
  "use strict";

  var STORE_KEY = "leafpile-keep-awake";
  var sentinel = null;      // the held Screen Wake Lock
  var requesting = false;   // a wake lock request on its way
  var nativeFailed = false; // the API refused: use the video from now on
  var video = null;
  var waitingForTap = false;

  function switchEl() { return document.getElementById("awake-switch"); }

  function wanted() {
    try {
      return window.localStorage.getItem(STORE_KEY) !== "off";
    } catch (e) {
      return true; // storage blocked: keep the default
    }
  }

  function remember(on) {
    try {
      if (on) window.localStorage.removeItem(STORE_KEY);
      else window.localStorage.setItem(STORE_KEY, "off");
    } catch (e) { /* this page still follows the switch */ }
  }

  function gameOver() { return !!document.querySelector("#board .end"); }

  function shouldHold() {
    return wanted() && !document.hidden && !!document.getElementById("board") && !gameOver();
  }

  function hasNative() {
    return !nativeFailed && window.isSecureContext && !!navigator.wakeLock &&
      typeof navigator.wakeLock.request === "function";
  }

  // ---- what the switch and the page say -----------------------------------
  // In the phone's language, from <body data-words> (companion/web/phone_words.py).
  var PAGE_WORDS = {};
  try {
    PAGE_WORDS = JSON.parse(document.body.getAttribute("data-words") || "{}");
  } catch (e) { /* a page without them */ }
  var WORDS = {};
  ["lock", "video", "tap", "over", "off", "none"].forEach(function (state) {
    WORDS[state] = PAGE_WORDS["awake_" + state] || "";
  });

  function show(state) {
    document.documentElement.setAttribute("data-awake", state);
    var button = switchEl();
    if (!button) return;
    var on = wanted();
    button.setAttribute("aria-checked", on ? "true" : "false");
    var say = document.getElementById("awake-say");
    if (!say) return;
    var words;
    if (!on) words = WORDS.off;
    else if (gameOver()) words = WORDS.over;
    else if (state === "off") words = WORDS.lock; // hidden for a moment: on again when shown
    else words = WORDS[state] || WORDS.lock;
    if (say.textContent !== words) say.textContent = words;
  }

  // ---- the Screen Wake Lock API --------------------------------------------
  function requestLock() {
    if (sentinel || requesting) return;
    requesting = true;
    navigator.wakeLock.request("screen").then(function (lock) {
      requesting = false;
      if (!shouldHold()) { // let go while it was on its way
        lock.release().catch(function () {});
        return;
      }
      sentinel = lock;
      lock.addEventListener("release", function () {
        // The browser lets go by itself when the page is hidden.
        if (sentinel === lock) sentinel = null;
        if (!shouldHold()) show("off");
      });
      show("lock");
    }, function () {
      // Refused (a power saver, a permissions policy): the video instead.
      requesting = false;
      nativeFailed = true;
      sync();
    });
  }

  function releaseLock() {
    if (!sentinel) return;
    var lock = sentinel;
    sentinel = null;
    lock.release().catch(function () {});
  }

  // ---- the fallback: a silent video in a loop ------------------------------
  function makeVideo() {
    var holder = document.getElementById("awake");
    var v = document.createElement("video");
    v.className = "awake-video";
    v.setAttribute("playsinline", "");
    v.setAttribute("loop", "");
    v.setAttribute("preload", "auto");
    v.setAttribute("aria-hidden", "true");
    v.setAttribute("tabindex", "-1");
    v.setAttribute("disablepictureinpicture", "");
    v.setAttribute("disableremoteplayback", "");
    v.setAttribute("title", PAGE_WORDS.awake_video_title || "");
    ["webm", "mp4"].forEach(function (kind) {
      var url = holder && holder.getAttribute("data-" + kind);
      if (!url) return;
      var source = document.createElement("source");
      source.src = url;
      source.type = "video/" + kind;
      v.appendChild(source);
    });
    document.body.appendChild(v);
    return v;
  }

  function playVideo() {
    if (!video) video = makeVideo();
    if (!video.querySelector("source")) { show("none"); return; }
    if (!video.paused) { show("video"); return; }
    var playing = video.play();
    if (!playing || !playing.then) { show("video"); return; }
    playing.then(function () {
      waitingForTap = false;
      if (!shouldHold()) { video.pause(); show("off"); return; }
      show("video");
    }, function (error) {
      if (error && error.name === "NotAllowedError") {
        // Sound needs a tap on the page first (autoplay rules).
        waitingForTap = true;
        show("tap");
      } else if (error && error.name !== "AbortError") {
        show("none");
      }
    });
  }

  function stopVideo() {
    if (video && !video.paused) video.pause();
  }

  // ---- hold or let go -------------------------------------------------------
  function sync() {
    if (!document.getElementById("awake")) return; // not a table page
    if (!shouldHold()) {
      releaseLock();
      stopVideo();
      show("off");
      return;
    }
    if (hasNative()) {
      stopVideo();
      if (sentinel) show("lock");
      else requestLock();
    } else {
      releaseLock();
      playVideo();
    }
  }

  // A tap anywhere is what a browser waits for before playing sound.
  function onTap() {
    if (waitingForTap && shouldHold() && !hasNative()) playVideo();
  }
  document.addEventListener("pointerdown", onTap, true);
  document.addEventListener("keydown", onTap, true);

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#awake-switch");
    if (!button) return;
    remember(!wanted());
    sync();
  });

  document.addEventListener("visibilitychange", sync);
  window.addEventListener("pagehide", function () {
    releaseLock();
    stopVideo();
  });
  window.addEventListener("pageshow", function (event) { if (event.persisted) sync(); });
  // A new board may end the game, or an Undo reopen it.
  document.addEventListener("htmx:afterSettle", sync);

  function start() {
    var holder = document.getElementById("awake");
    if (holder) holder.hidden = false; // the switch needs this script
    sync();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
