// Leafpile: a table's change stream (companion/web/stream.py).
// The stream says only "the table is at version V now". When V is newer than
// the board this phone shows, the board's own poller fetches it (the "wake"
// trigger, through the projection that decides what this phone may see).
// The poller's slow timer stays as the fallback for a stream that died
// without a word; waking up, coming back online or reconnecting fetch at once.
(function () {
  "use strict";

  var source = null;
  var sourceUrl = null;
  var newest = -1;     // the newest version the stream announced
  var retryTimer = null;

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
    source.onopen = function () { document.documentElement.setAttribute("data-stream", "open"); };
    source.onmessage = function (event) {
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
