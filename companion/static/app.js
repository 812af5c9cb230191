// Leafpile: the few behaviours htmx attributes cannot express.
// Loaded as a file (the Content-Security-Policy allows no inline script).
(function () {
  "use strict";

  // The words this script writes, in the phone's language: JSON the server
  // put on <body data-words> (companion/web/phone_words.py). "{tap}" and the
  // like are filled in here; a number's sentence has its plural forms.
  var WORDS = {};
  try {
    WORDS = JSON.parse(document.body.getAttribute("data-words") || "{}");
  } catch (e) { /* a page without them: no words to say */ }
  function word(key, values) {
    var text = String(WORDS[key] || "");
    Object.keys(values || {}).forEach(function (name) {
      text = text.split("{" + name + "}").join(values[name]);
    });
    return text;
  }
  function counted(key, n) {
    var forms = WORDS[key] || [];
    var index = (WORDS.plural || [])[Math.min(n, 99)] || 0;
    return String(forms[index] || forms[forms.length - 1] || "").split("{n}").join(n);
  }

  var TYPING = "input:not([type=hidden]):not([type=radio]):not([type=checkbox]):not([type=submit]), textarea, select";

  // A board someone has typed into is "dirty": live refresh must not swap it
  // away under their thumb. Their own submit replaces it with a clean one.
  document.addEventListener("input", function (event) {
    var board = event.target.closest && event.target.closest("#board");
    if (board) board.setAttribute("data-dirty", "1");
  });

  function isPoller(elt) {
    return !!(elt && elt.classList && elt.classList.contains("poller"));
  }

  // Someone is typing into the board (a half-filled score-pad round).
  function beingTyped() {
    var board = document.getElementById("board");
    if (!board) return false;
    var active = document.activeElement;
    return !!(board.getAttribute("data-dirty") ||
              (active && board.contains(active) && active.matches(TYPING)));
  }

  // While a tap is on its way, a poll neither leaves nor swaps the board:
  // the tap's answer must land on the board it was made on.
  var tapsInFlight = 0;
  var lastTapAt = 0;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!isPoller(event.detail.elt)) {
      tapsInFlight += 1;
      lastTapAt = Date.now();
      return;
    }
    if (tapsInFlight > 0 && Date.now() - lastTapAt > 20000) tapsInFlight = 0; // a lost count
    // Skip this poll (the next one will catch up) while the phone sleeps, a
    // tap is on its way, or a board being typed into knows the table changed.
    if (tapsInFlight > 0) pollSkipped = true;
    if (document.hidden || tapsInFlight > 0 || (beingTyped() && changedUnderThumb)) {
      event.preventDefault();
    }
  });
  var pollSkipped = false;
  function wakePoll() {
    var poller = document.querySelector(".poller");
    if (poller && window.htmx) window.htmx.trigger(poller, "wake");
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    if (isPoller(event.detail.elt) || tapsInFlight === 0) return;
    tapsInFlight -= 1;
    // A refresh held back for the tap goes now, on the board the tap answered.
    if (tapsInFlight === 0 && pollSkipped) {
      pollSkipped = false;
      window.setTimeout(wakePoll, 50);
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    if (config && isPoller(config.elt) && tapsInFlight > 0) {
      event.detail.shouldSwap = false;
      pollSkipped = true; // asked again once the tap is answered
    }
  });

  // A board being typed into is not swapped away by a poll; the phone says
  // that the table changed instead of freezing in silence (issue 20).
  var changedUnderThumb = false;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    if (!config || !isPoller(config.elt) || event.detail.xhr.status !== 200) return;
    if (!beingTyped()) return;
    event.detail.shouldSwap = false;
    changedUnderThumb = true;
    dock("changed", word("changed"), word("show_it"), function () {
      var board = document.getElementById("board");
      if (board) board.removeAttribute("data-dirty");
      if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
      changedUnderThumb = false;
      dock("changed", null);
      var poller = document.querySelector(".poller");
      if (poller && window.htmx) window.htmx.trigger(poller, "wake");
    });
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.elt && event.detail.elt.id === "board") {
      changedUnderThumb = false;
      dock("changed", null);
    }
  });

  // ---- The dock: lines about taps, fixed above the bottom edge ------------
  // One line per kind ("pending", "changed"); text null takes it away.
  function dock(kind, text, buttonText, onButton) {
    var box = document.getElementById("tap-dock");
    if (!box) {
      if (!text) return;
      box = document.createElement("div");
      box.id = "tap-dock";
      box.className = "tap-dock";
      box.setAttribute("role", "status");
      document.body.appendChild(box);
    }
    var line = box.querySelector('[data-kind="' + kind + '"]');
    if (!text) {
      if (line) line.remove();
      return;
    }
    if (!line) {
      line = document.createElement("p");
      line.setAttribute("data-kind", kind);
      line.className = "tap-dock-line tap-dock-" + kind;
      box.appendChild(line);
    }
    line.textContent = "";
    var words = document.createElement("span");
    words.textContent = text;
    line.appendChild(words);
    if (buttonText) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "btn btn-small";
      button.textContent = buttonText;
      button.addEventListener("click", onButton);
      line.appendChild(button);
    }
  }

  // ---- A tap is never lost in silence (issues 20, 42, 43) -----------------
  // A tap that cannot reach the table (offline, no answer, 502-504: a proxy,
  // or the database restarting) is kept with its tap id, said to be waiting,
  // and sent again once online or a poll gets through. A tap id is entered
  // once, so a tap that did arrive is answered "already entered".
  // The queue sends what the player meant (issue 43): each waiting tap is
  // named ("Your bid, Ana: 3"); a later tap on the same pad (a card pad, or
  // a form marked data-pad) replaces the earlier one before it is sent; and
  // each tap sent names the taps queued before it ("follows"), so the table
  // never refuses it as stale because of this phone's own earlier tap.
  var pending = [];
  var resending = null;  // the tap on its way from the queue
  var keptAgain = false;  // the tap sent again was kept again
  var waitingForTable = false;  // the table answered 502-504 (the phone is online)
  var queued = [];  // every tap id of this run of the queue, in the order kept
  var VOLATILE = {tap: 1, version: 1, csrf_token: 1, follows: 1};

  // What the player tapped, in their words: the key's label, else its text.
  function tapName(config) {
    var event = config.triggeringEvent;
    var button = event && event.submitter;
    if (!button && config.elt && config.elt.querySelector) {
      button = config.elt.querySelector("button[type=submit], button:not([type])");
    }
    if (!button) return "";
    var words = button.getAttribute("aria-label") || button.textContent || "";
    // What the form says besides the button: the cards picked, the numbers typed.
    var said = [];
    var form = config.elt && config.elt.querySelectorAll ? config.elt : null;
    if (form) {
      form.querySelectorAll("input[type=radio]:checked[aria-label]").forEach(function (radio) {
        said.push(radio.getAttribute("aria-label"));
      });
      form.querySelectorAll("input[type=number]").forEach(function (field) {
        var label = field.labels && field.labels[0];
        if (field.value !== "" && label) said.push(label.textContent.trim() + " " + field.value);
      });
    }
    if (said.length) words += ": " + said.join(", ");
    return words.replace(/\s+/g, " ").trim();
  }

  // Which pad a tap was made on: a later tap with the same key replaces it.
  function padKey(config, values) {
    var form = config.elt;
    if (!form || !form.matches || !form.matches(".pad-form, [data-pad]")) return null;
    var event = config.triggeringEvent;
    var pressed = event && event.submitter && event.submitter.name;
    var parts = [config.path];
    Object.keys(values).sort().forEach(function (key) {
      if (!VOLATILE[key] && key !== pressed && !form.querySelector('[type=radio][name="' + key + '"]')) {
        parts.push(key + "=" + values[key]);
      }
    });
    return parts.join("&");
  }

  function keep(config) {
    if (!config || config.verb === "get" || isPoller(config.elt)) return false;
    var values = {};
    var data = config.formData || config.unfilteredFormData;
    if (!data || !data.forEach) return false;
    data.forEach(function (value, key) {
      if (!(key in values)) values[key] = value;
      else if (Array.isArray(values[key])) values[key].push(value);
      else values[key] = [values[key], value];
    });
    if (!values.tap) return false;
    keptAgain = true;
    for (var i = 0; i < pending.length; i++) {
      if (pending[i].values.tap === values.tap) return true; // already kept
    }
    var again = resending && resending.values.tap === values.tap;
    var tap = again ? resending : {
      path: config.path, verb: config.verb, values: values,
      name: tapName(config), pad: padKey(config, values)
    };
    if (again) {
      pending.unshift(tap);  // still first in line
    } else {
      if (tap.pad) {
        pending = pending.filter(function (earlier) { return earlier.pad !== tap.pad; });
      }
      pending.push(tap);
      queued.push(values.tap);
    }
    showPending();
    retrySoon();
    return true;
  }

  function listOf(taps) {
    var names = taps.map(function (t) { return t.name; }).filter(Boolean);
    return names.length === taps.length ? names.join("; ") : "";
  }

  function showPending() {
    if (!pending.length) {
      dock("pending", null);
      return;
    }
    var named = listOf(pending);
    var said;
    if (waitingForTable) {
      said = pending.length === 1 ? word("waiting_one") : counted("waiting_many", pending.length);
    } else {
      said = pending.length === 1 ? word("unsent_one") : counted("unsent_many", pending.length);
    }
    if (named) said += " " + word(pending.length === 1 ? "waiting_for" : "in_order", {taps: named});
    dock("pending", said, word("cancel"), function () {
      pending = [];
      queued = [];
      showPending();
      announce(word("cancelled"));
    });
    announce(said);
  }

  // While taps wait, poll every few seconds (or after Retry-After): the
  // first answer that gets through sends them.
  var retryTimer = null;
  var retryAfterMs = 4000;
  function retrySoon() {
    if (retryTimer) return;
    retryTimer = window.setTimeout(function () {
      retryTimer = null;
      if (!pending.length && !waitingForTable) return;
      wakePoll();
      retrySoon();
    }, retryAfterMs);
  }

  function retryAfterOf(xhr) {
    var seconds = parseInt((xhr && xhr.getResponseHeader("Retry-After")) || "", 10);
    return isNaN(seconds) ? 4000 : Math.min(30, Math.max(1, seconds)) * 1000;
  }

  // A table that answered 502-504 said when to ask again (Retry-After): no
  // kept tap goes before then, whatever poll gets through first (a poll
  // held back for the refused tap is sent 50 ms after its answer).
  var quietUntil = 0;
  function resend() {
    if (resending || !pending.length || !window.htmx) return;
    if (Date.now() < quietUntil) {
      retrySoon();
      return;
    }
    var tap = pending.shift();
    resending = tap;
    keptAgain = false;
    showPending();
    var values = Object.assign({}, tap.values);
    var before = queued.slice(0, queued.indexOf(tap.values.tap));
    if (before.length) values.follows = before;
    window.htmx.ajax(tap.verb.toUpperCase(), tap.path, {
      target: "#board", swap: "outerHTML", values: values
    }).then(function () {
      resending = null;
      if (!pending.length && !keptAgain) queued = [];
      // Kept again: the next poll that gets through sends it (no loop).
      if (pending.length && !keptAgain) resend();
    }, function () {
      resending = null;
    });
  }

  // A tap sent from the queue says how it went, by name: entered, or not
  // entered and why (the board's refusal, which also shows what stands).
  document.addEventListener("htmx:afterSwap", function (event) {
    var tap = resending;
    if (!tap || !tap.name || !event.detail.elt || event.detail.elt.id !== "board") return;
    var config = event.detail.requestConfig;
    if (!config || !config.parameters || config.parameters.tap !== tap.values.tap) return;
    var refusal = document.querySelector("#board .notice-error");
    var status = event.detail.xhr && event.detail.xhr.status;
    if (status >= 400 && refusal) {
      var lead = document.createElement("strong");
      lead.textContent = word("sent_refused", {tap: tap.name}) + " ";
      refusal.insertBefore(lead, refusal.firstChild);
    } else if (status < 300) {
      sayWhy(word("sent", {tap: tap.name}), "sent");
    }
  });

  // A board that cannot be refreshed says so, instead of looking current.
  var OFFLINE = word("offline");
  document.addEventListener("htmx:sendError", function (event) {
    keep(event.detail.requestConfig);
    dock("offline", OFFLINE);
  });
  window.addEventListener("offline", function () { dock("offline", OFFLINE); });
  document.addEventListener("htmx:timeout", function (event) {
    keep(event.detail.requestConfig);
  });

  // The text of an error answer's message, for the dock.
  function messageOf(xhr) {
    try {
      var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
      var notice = doc.querySelector(".notice-error, .error-page p");
      return notice ? notice.textContent.replace(/\s+/g, " ").trim() : "";
    } catch (e) {
      return "";
    }
  }

  // 502-504: the table cannot answer now. The board stays (an error in its
  // place would take its poller, and nothing would ask again); a tap is
  // kept; the dock says what the phone waits for.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var status = xhr && xhr.status;
    if (status !== 502 && status !== 503 && status !== 504) return;
    var config = event.detail.requestConfig;
    var target = event.detail.target;
    var onBoard = target && target.id === "board";
    if (!onBoard && !keepable(config)) return;  // a page of its own: its own words
    event.detail.shouldSwap = false;
    retryAfterMs = retryAfterOf(xhr);
    quietUntil = Date.now() + retryAfterMs;
    if (keep(config)) {
      waitingForTable = true;
      showPending();
      return;
    }
    if (isPoller(config && config.elt)) {
      waitingForTable = true;
      dock("waiting", word("not_answering"));
      retrySoon();
      return;
    }
    var said = messageOf(xhr) || word("no_answer");
    sayWhy(said);
  });
  // 429: a limit (the solver's hints, say). The answer goes where the tap
  // was made, never in place of the board (issue 43): the control's
  // data-limited words ("{s}" the seconds the table gave in Retry-After)
  // are put after its [data-limit-answer] box; else the dock says it.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status !== 429) return;
    var target = event.detail.target;
    if (!target || target.id !== "board") return;
    event.detail.shouldSwap = false;
    var seconds = parseInt(xhr.getResponseHeader("Retry-After") || "", 10);
    var wait = isNaN(seconds) ? word("a_minute") : word("seconds", {s: seconds});
    var config = event.detail.requestConfig;
    var elt = config && config.elt;
    var words = elt && elt.getAttribute && elt.getAttribute("data-limited");
    var box = elt && elt.closest && elt.closest("[data-limit-answer]");
    if (!words || !box) {
      sayWhy((messageOf(xhr) || word("too_many")) + " " + word("try_again", {wait: wait}));
      return;
    }
    var line = box.parentNode.querySelector(".limit-answer");
    if (!line) {
      line = document.createElement("p");
      line.className = "notice notice-error limit-answer";
      line.setAttribute("role", "alert");
      box.parentNode.insertBefore(line, box.nextSibling);
    }
    line.textContent = words.replace("{s}", wait);
    bringIntoView(line);
  });
  function keepable(config) {
    return !!(config && config.verb !== "get" && !isPoller(config.elt));
  }
  window.addEventListener("online", resend);
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!event.detail.xhr || !event.detail.xhr.status) return; // it never got through
    dock("offline", null);
    var status = event.detail.xhr.status;
    if (status >= 502 && status <= 504) return;
    if (waitingForTable) {
      waitingForTable = false;
      dock("waiting", null);
      showPending();
    }
    if (isPoller(event.detail.elt) && event.detail.successful) resend();
  });

  // Keep open <details> (with an id) open across a refresh of the board.
  var openDetails = [];
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "board") return;
    // The answer to "who is this phone" decides what is open itself (the
    // who bar closes once a choice is made, even a second one).
    var config = event.detail.requestConfig;
    if (config && /\/me$/.test(config.path || "")) {
      openDetails = [];
      return;
    }
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

  // A fetched board's CSRF fields are empty (every phone gets the same
  // bytes); htmx sends the token as a header, and a form sent without htmx
  // (Play again) gets it here.
  function pageToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }
  document.addEventListener("htmx:load", function (event) {
    var root = event.detail.elt;
    if (!root || !root.querySelectorAll) return;
    var token = null;
    root.querySelectorAll('input[name="csrf_token"]').forEach(function (field) {
      if (field.value) return;
      token = token === null ? pageToken() : token;
      field.value = token;
    });
  });

  // Every tap carries an id, so a tap that arrives twice is entered once.
  // getRandomValues works on plain http:// (randomUUID needs https).
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

  // ---- A form sent before htmx took it still carries the token -----------
  // Boards swapped in carry no CSRF token in their fields (one render is
  // shared by many phones; htmx sends the page's token as a header). A tap
  // that lands in the instant before htmx has taken a fresh form is sent by
  // the browser itself, without that header: it was refused as a stale page
  // and lost. The page's token goes into the form's empty field first.
  document.addEventListener("submit", function (event) {
    var field = event.target.querySelector && event.target.querySelector('input[name="csrf_token"]');
    if (!field || field.value) return;
    try {
      field.value = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
    } catch (error) { /* no token on this page: the server says so */ }
  }, true);

  // ---- Answers where the eye is (issue 20) --------------------------------
  // After a tap swaps the board, its answer is brought into view and read out
  // (#announcer, outside the board): a refusal, else the board's notice, else
  // data-answer, else the first status line. A poll moves and says nothing.
  var ANSWERS = ["#board .notice-error", "#board > .notice", "#board [data-answer]", "#board .status"];

  function announce(text) {
    var region = document.getElementById("announcer");
    if (!region || !text) return;
    region.textContent = "";
    // A fresh node a moment later, so the same words twice are read twice.
    window.setTimeout(function () { region.textContent = text; }, 50);
  }

  // What to read out: the marked words, else the answer's heading, else its text.
  function wordsOf(el) {
    var heading = el.querySelector("h2, h3");
    var words = el.getAttribute("data-answer") || (heading && heading.textContent) || el.textContent;
    return (words || "").replace(/\s+/g, " ").trim();
  }

  function bringIntoView(el) {
    var box = el.getBoundingClientRect();
    var top = 0;
    var bar = document.querySelector(".topbar");
    if (bar && getComputedStyle(bar).position === "sticky") top = bar.getBoundingClientRect().bottom;
    if (box.top >= top && box.bottom <= window.innerHeight) return;
    var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    el.scrollIntoView({block: box.height > window.innerHeight - top ? "start" : "nearest",
                       behavior: reduce ? "auto" : "smooth"});
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var elt = event.detail.elt;
    var config = event.detail.requestConfig;
    if (!config || !elt || elt.id !== "board") return;
    if (config.elt && config.elt.classList && config.elt.classList.contains("poller")) return;
    // Saying who this phone is (a post to /me) is answered by the who bar
    // itself, like a view change: no status line to scroll to.
    var post = config.verb !== "get" && !/\/me$/.test(config.path || "");
    for (var i = 0; i < ANSWERS.length; i++) {
      var answer = document.querySelector(ANSWERS[i]);
      if (!answer) continue;
      // A tap that only changes the view (a GET: a chip, a square picked) is
      // answered by a refusal, a notice or what the template marks, never
      // by the first status line.
      if (!post && i > 2) return;
      bringIntoView(answer);
      // A role=alert is read out by the screen reader as it appears: a
      // copy in #announcer would be read twice.
      if (answer.getAttribute("role") !== "alert") announce(wordsOf(answer));
      return;
    }
  });

  // ---- A tap that does nothing says why (issue 20) ------------------------
  // The template puts the reason in data-why; a tap shows it in the dock and
  // reads it out. A disabled control gets no clicks (CSS passes them
  // through), so the tap is matched to it by where it landed.
  var whyTimer = null;
  function whyAt(event) {
    var own = event.target.closest && event.target.closest("[data-why]");
    if (own) return own;
    var x = event.clientX, y = event.clientY;
    var off = document.querySelectorAll("[disabled][data-why], [aria-disabled=true][data-why]");
    for (var i = 0; i < off.length; i++) {
      var box = off[i].getBoundingClientRect();
      if (x >= box.left && x <= box.right && y >= box.top && y <= box.bottom) return off[i];
    }
    return null;
  }
  function sayWhy(text, kind) {
    kind = kind || "why";
    dock(kind, text, word("ok"), function () { dock(kind, null); });
    announce(text);
    if (whyTimer) window.clearTimeout(whyTimer);
    whyTimer = window.setTimeout(function () { dock(kind, null); }, 8000);
  }
  document.addEventListener("click", function (event) {
    var el = whyAt(event);
    if (!el) return;
    // Another script may make the tap mean something after all (a picked
    // solitaire card goes to the pile tapped): then it says nothing.
    window.setTimeout(function () {
      if (!event.defaultPrevented) sayWhy(el.getAttribute("data-why"));
    }, 0);
  });
  document.addEventListener("htmx:beforeRequest", function () { dock("why", null); });

  // ---- Quick taps on a pad are kept (issue 20) ----------------------------
  // A key tapped before the last key's board arrived was lost (htmx queued
  // it on the replaced form): it waits and is made again on the new board.
  var heldKeys = [];
  var PAD_KEY = "#board form[hx-get] button[name][value]";
  document.addEventListener("click", function (event) {
    var key = event.target.closest && event.target.closest(PAD_KEY);
    if (!key || !key.form || !key.form.classList.contains("htmx-request")) return;
    event.preventDefault();
    event.stopPropagation();
    heldKeys.push({ name: key.name, value: key.value });
  }, true);
  document.addEventListener("htmx:afterSettle", function () {
    while (heldKeys.length) {
      var held = heldKeys.shift();
      var keys = document.querySelectorAll(PAD_KEY);
      for (var i = 0; i < keys.length; i++) {
        if (keys[i].name !== held.name || keys[i].value !== held.value) continue;
        if (keys[i].disabled) {
          sayWhy(keys[i].getAttribute("data-why") || word("key_off"));
          break;
        }
        keys[i].click();
        return; // the rest wait for this one's board
      }
    }
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
