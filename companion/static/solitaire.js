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
