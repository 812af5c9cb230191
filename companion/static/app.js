// Leafpile: the few behaviours htmx attributes cannot express.
// Loaded as a file (the Content-Security-Policy allows no inline script).
(function () {
  "use strict";

  var TYPING = "input:not([type=hidden]):not([type=radio]):not([type=checkbox]):not([type=submit]), textarea, select";

  // A board someone has typed into is "dirty": live refresh must not swap it
  // away under their thumb. Their own submit replaces it with a clean one.
  document.addEventListener("input", function (event) {
    var board = event.target.closest && event.target.closest("#board");
    if (board) board.setAttribute("data-dirty", "1");
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt.classList || !elt.classList.contains("poller")) return;
    var board = document.getElementById("board");
    var active = document.activeElement;
    var typing = board && active && board.contains(active) && active.matches(TYPING);
    if (document.hidden || (board && board.getAttribute("data-dirty")) || typing) {
      event.preventDefault(); // skip this poll; the next one will catch up
    }
  });

  // Keep open <details> (with an id) open across a refresh of the board.
  var openDetails = [];
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "board") return;
    openDetails = Array.prototype.map.call(
      target.querySelectorAll("details[open][id]"), function (d) { return d.id; });
  });
  // afterSwap runs as soon as the new board is in the page, before the
  // settle delay, so a tap cannot land on a panel that is about to reopen.
  document.addEventListener("htmx:afterSwap", function () {
    openDetails.forEach(function (id) {
      var d = document.getElementById(id);
      if (d) d.open = true;
    });
    openDetails = [];
  });

  // Catch up at once when the phone wakes or the tab comes back.
  document.addEventListener("visibilitychange", function () {
    if (document.hidden || !window.htmx) return;
    var poller = document.querySelector(".poller");
    if (poller) window.htmx.trigger(poller, "wake");
  });

  // Every tap carries an id, so a tap that reaches the server twice (a
  // retry, a double tap, a proxy's retry) is entered once. getRandomValues
  // works on plain http:// (randomUUID needs a secure context).
  function newTapId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    if (detail.verb === "get" || detail.parameters.tap) return;
    detail.parameters.tap = newTapId();
  });

  // Ask before a destructive button (data-confirm), without inline script.
  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    var message = (button && button.getAttribute("data-confirm")) ||
      event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
})();
