// Leafpile: a table's change stream (companion/web/stream.py).
// The stream says only "the table is at version V now". When V is newer than
// the board this phone shows, the board's own poller fetches it (the "wake"
// trigger, through the projection that decides what this phone may see).
// The poller's slow timer stays as the fallback for a stream that died
// without a word, and runs only then: while the stream keeps talking (an
// event, or its heartbeat every data-heartbeat seconds) the timer's poll is
// skipped, so an idle phone costs no request at all. Waking up, coming back
// online or reconnecting fetch at once.
(function () {
  "use strict";

  var source = null;
  var sourceUrl = null;
  var newest = -1;     // the newest version the stream announced
  var retryTimer = null;
  var heard = 0;       // when the stream last said anything (Date.now())

  function poller() { return document.querySelector("#board .poller"); }

  function shownVersion() {
    var board = document.getElementById("board");
    var version = board && parseInt(board.getAttribute("data-version"), 10);
    return isNaN(version) ? -1 : version;
  }

  // "/t/TOKEN/poll?v=3" -> "/t/TOKEN/stream"
  function streamUrl(element) {
    var poll = element && element.getAttribute("hx-get");
    if (!poll) return null;
    var path = poll.split("?")[0];
    return /\/poll$/.test(path) ? path.replace(/\/poll$/, "/stream") : null;
  }

  function refresh() {
    var element = poller();
    if (element && window.htmx) window.htmx.trigger(element, "wake");
  }

  function close() {
    if (source) source.close();
    source = null;
    sourceUrl = null;
  }

  function connect() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    var url = streamUrl(poller());
    if (!url || !window.EventSource) { close(); return; }
    if (source && sourceUrl === url && source.readyState !== EventSource.CLOSED) return;
    close();
    sourceUrl = url;
    source = new EventSource(url);
    // Said on the page (for people debugging, and for the tests): is the stream up?
    source.onopen = function () {
      heard = Date.now();
      document.documentElement.setAttribute("data-stream", "open");
    };
    source.addEventListener("beat", function () { heard = Date.now(); });
    source.onmessage = function (event) {
      heard = Date.now();
      var version = parseInt(event.data, 10);
      if (isNaN(version)) { refresh(); return; }  // "moved": deleted, or a rematch
      if (version > newest) newest = version;
      if (version > shownVersion()) refresh();
    };
    source.onerror = function () {
      document.documentElement.setAttribute("data-stream", "down");
      // EventSource retries a dropped stream by itself; a refused one (the
      // server restarting, a proxy's error page) it gives up on: catch up
      // now and try again a little later.
      if (source && source.readyState === EventSource.CLOSED) {
        close();
        refresh();
        retryTimer = setTimeout(connect, 3000 + Math.random() * 4000);
      }
    };
  }

  // After every board swap: a change announced while the last fetch was on
  // its way is fetched now, and a new table address gets its own stream.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id !== "board" && !document.getElementById("board")) return;
    if (newest > shownVersion()) refresh();
    connect();
  });

  // Is the stream alive: open, and heard within one and a half heartbeats?
  function talking() {
    var element = poller();
    var beat = element && parseFloat(element.getAttribute("data-heartbeat"));
    if (!source || source.readyState !== EventSource.OPEN || !(beat > 0)) return false;
    return Date.now() - heard < beat * 1500 + 2000;
  }

  // The poller's timer poll (the only request htmx makes with no triggering
  // event) is not sent while the stream talks; a "wake" always is.
  document.addEventListener("htmx:confirm", function (event) {
    var detail = event.detail;
    var fromTimer = detail && !detail.triggeringEvent && detail.elt && detail.elt.classList
      && detail.elt.classList.contains("poller");
    if (fromTimer && talking()) event.preventDefault();
  });

  function wake() {
    if (document.hidden) return;
    refresh();
    connect();
  }
  window.addEventListener("online", wake);
  window.addEventListener("pageshow", function (event) { if (event.persisted) wake(); });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && (!source || source.readyState === EventSource.CLOSED)) connect();
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", connect);
  } else {
    connect();
  }
})();
