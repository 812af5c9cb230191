// Leafpile: where the eye lands after the board is swapped (issue 43).
//
// The board is replaced whole (htmx outerHTML) and the page stays where it
// was (app.css keeps the browser's scroll anchoring off the board, whose
// nodes never survive a swap). A tap made low on a long form (the North
// Wind's final count, the score pad's Finish) then left its answer, at the
// top of the new board, above the screen. app.js brings a tap's marked
// answer (data-answer, a notice) into view; two answers concern every
// phone at the table, not only the one that tapped, and are brought into
// view here after any swap, tap or live refresh:
//   - the end screen, when it appears (the game just ended);
//   - a reveal's outcome (an element with data-reveal="N", N growing with
//     each reveal: Venture's round, Autumn Leaves' hand and round), put at
//     the top of the screen, so the first thing a phone shows after a
//     reveal is who played what, not the next round.
// Not on a page load: a phone opening the table starts at its top.
(function () {
  "use strict";

  var wasOver = false;
  var lastReveal = -1;

  function revealOf(board) {
    var best = -1;
    var found = null;
    board.querySelectorAll("[data-reveal]").forEach(function (el) {
      var n = parseInt(el.getAttribute("data-reveal"), 10);
      if (!isNaN(n) && n > best) { best = n; found = el; }
    });
    return {number: best, el: found};
  }

  function remember() {
    var board = document.getElementById("board");
    if (!board) return;
    wasOver = !!board.querySelector(".end");
    lastReveal = revealOf(board).number;
  }

  function announce(text) {
    var region = document.getElementById("announcer");
    if (!region || !text) return;
    region.textContent = "";
    window.setTimeout(function () { region.textContent = text; }, 50);
  }

  function wordsOf(el) {
    var heading = el.querySelector(".end-headline") || el.querySelector("h2, h3");
    return ((heading || el).textContent || "").replace(/\s+/g, " ").trim();
  }

  // The element's top just under the sticky top bar (its scroll-margin).
  function toTop(el) {
    var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    el.scrollIntoView({block: "start", behavior: reduce ? "auto" : "smooth"});
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var board = document.getElementById("board");
    var elt = event.detail && event.detail.elt;
    if (!board || !elt || elt.id !== "board") return;
    var end = board.querySelector(".end");
    var reveal = revealOf(board);
    var endNew = !!end && !wasOver;
    var revealNew = !!reveal.el && reveal.number > lastReveal;
    wasOver = !!end;
    lastReveal = reveal.number;
    var target = endNew ? end : (revealNew ? reveal.el : null);
    if (!target) return;
    toTop(target);
    announce(wordsOf(target));
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", remember);
  else remember();
})();
