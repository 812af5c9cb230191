// Autumn Leaves solitaire: tap a pile to move the picked card there, and drag
// cards on a desktop. Without this file the numbered buttons above the piles
// do the same. Plain external script: the Content-Security-Policy forbids
// inline script. Listeners sit on the document, so they survive htmx swaps.
(function () {
  "use strict";
  if (window.leafpileSolitaire) return; // loaded once, however many swaps
  window.leafpileSolitaire = true;

  function layout() { return document.getElementById("sol-layout"); }

  function picked(form) {
    var radio = form.querySelector("input[name=pick]:checked");
    return radio ? radio.value : null;
  }

  function sendTo(pile) {
    var button = pile.querySelector("button.sol-drop");
    if (button) button.click(); // a real submit: htmx posts it, or the browser does
  }

  // A tap on a pile (not on the card being picked) moves the picked cards there.
  document.addEventListener("click", function (event) {
    var form = layout();
    if (!form || !form.contains(event.target)) return;
    if (event.target.closest("button.sol-drop")) return; // the button does it itself
    if (event.target.matches("input")) return; // the label's own click on its radio
    var pile = event.target.closest(".sol-pile");
    if (!pile) return;
    var pick = picked(form);
    var card = event.target.closest("label.sol-card");
    if (!pick) return; // nothing picked yet: the tap picks (the label does that)
    var source = pick.split(":")[0];
    if (pile.getAttribute("data-pile") === source) {
      if (card && card.getAttribute("data-pick") === pick) {
        event.preventDefault();
        if (card.classList.contains("sol-hinted")) {
          // The hint picked this card already: a tap on it says "yes, this
          // one" and keeps it picked. It is an ordinary pick from now on.
          card.classList.remove("sol-hinted");
          return;
        }
        // Tapping the picked card again puts it down.
        card.querySelector("input").checked = false;
      }
      return; // another card of the same pile: the label picks it instead
    }
    event.preventDefault();
    sendTo(pile);
  });

  // ---- A long pile keeps its top card on the first screen (issue 43) ----
  // A pile of 15 cards or more (.sol-long) is compressed just enough for its
  // top card to end above the fold of the phone's first screen: its fixed
  // cards to 10 px edges first, then its face-down cards, then the run on
  // top to 26 px a card. A wide screen (700 px and up) shows piles whole.
  var SLICES = [  // [CSS variable, the cards whose slice it sets, normal px, least px]
    ["--fixed", ".sol-fixed, label.sol-idle", 22, 10],
    ["--back", ".sol-back", 14, 6],
    ["--run", "label.sol-card:not(.sol-idle)", 44, 26]
  ];
  function fitPile(stack, fold) {
    SLICES.forEach(function (s) { stack.style.removeProperty(s[0]); });
    var top = stack.lastElementChild;
    if (!top) return;
    var over = top.getBoundingClientRect().bottom + window.scrollY - fold;
    SLICES.forEach(function (s) {
      if (over <= 0) return;
      var under = Array.prototype.filter.call(stack.querySelectorAll(s[1]), function (card) {
        return card !== top;
      }).length;
      if (!under) return;
      var cut = Math.min(over, under * (s[2] - s[3]));
      stack.style.setProperty(s[0], (s[2] - cut / under).toFixed(1) + "px");
      over -= cut;
    });
  }
  function fitPiles() {
    if (!window.matchMedia("(max-width: 699px)").matches) return;
    var fold = window.innerHeight - 8;
    document.querySelectorAll(".sol-stack.sol-long").forEach(function (stack) {
      fitPile(stack, fold);
    });
  }
  document.addEventListener("htmx:afterSwap", fitPiles);
  window.addEventListener("resize", fitPiles);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fitPiles);
  else fitPiles();

  // Desktop: drag a card (and what lies on it) onto a pile.
  document.addEventListener("dragstart", function (event) {
    var card = event.target.closest && event.target.closest("label.sol-card[data-pick]");
    if (!card) return;
    var input = card.querySelector("input");
    if (input) input.checked = true;
    event.dataTransfer.setData("text/plain", card.getAttribute("data-pick"));
    event.dataTransfer.effectAllowed = "move";
  });
  document.addEventListener("dragover", function (event) {
    var pile = event.target.closest && event.target.closest("#sol-layout .sol-pile");
    if (pile) { event.preventDefault(); pile.classList.add("sol-over"); }
  });
  document.addEventListener("dragleave", function (event) {
    var pile = event.target.closest && event.target.closest(".sol-pile");
    if (pile && !pile.contains(event.relatedTarget)) pile.classList.remove("sol-over");
  });
  document.addEventListener("drop", function (event) {
    var pile = event.target.closest && event.target.closest("#sol-layout .sol-pile");
    if (!pile) return;
    event.preventDefault();
    pile.classList.remove("sol-over");
    sendTo(pile);
  });
})();
