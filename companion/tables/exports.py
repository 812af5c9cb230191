"""Finished games on their way out of the app: BG Stats and BoardGameGeek.

Pure (no Flask): a finished table becomes a :class:`Play`, either from its
summary (the end screen) or from its stored result rows (the records), and a
play becomes

* a **BG Stats link** (:func:`bgstats_url`): BG Stats' documented "push
  plays" request, ``https://app.bgstatsapp.com/createPlay.html?data=<data>``
  where ``<data>`` is URL-encoded JSON with ``sourceName``, ``sourcePlayId``,
  ``playDate``, ``durationMin``, ``location``, ``comments``, ``board``,
  ``game{bggId, name, highestWins, noPoints, sourceGameId}`` and
  ``players[{name, score, rank, winner, startPlayer, sourcePlayerId}]``
  (BG Stats 3.3.2 or later opens it and shows its import dialog);
* **BoardGameGeek-ready CSV rows** (:func:`bgg_rows`): one row per player
  per play, in the fields of a BGG play (date, game and its BGG id,
  location, length, quantity, incomplete, nowinstats, player, start
  position, score, win), which BGG play-logging tools map column by column.

Every ruling about what a game sends lives in :data:`GAMES` and
:func:`ranked` (see docs/records.md, "Leaving the app").
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import quote

from companion.i18n import LANGUAGES, catalog

from .results import ResultLine, name_key
from .summaries import LOST, SHARED, WON, Summary

SOURCE_NAME = "Leafpile"
#: Ruling: a play's location is the app that scored it (BG Stats lets the
#: player match it to a place of theirs once; it remembers the match).
LOCATION = "Leafpile"
BGSTATS_URL = "https://app.bgstatsapp.com/createPlay.html?data="
#: A table left open overnight is not a 14-hour game: longer plays send no length.
MAX_DURATION_MIN = 12 * 60


@dataclass(frozen=True)
class GameInfo:
    """What BG Stats and BGG are told about one of our games."""

    name: str
    highest_wins: bool
    no_points: bool = False
    #: BoardGameGeek's id, where the game has one and we could confirm it.
    #: None sends no id: BG Stats then matches the game by name (once; it
    #: remembers the match) and a BGG tool asks for the game.
    bgg_id: int | None = None
    solo: bool = False


# The rulings, game by game (docs/records.md):
# * Pairs: points are bad (highestWins false) and nobody wins (P2): every
#   "winner" is false and the loser has the last rank.
# * Autumn Leaves: lowest total wins (A9).
# * The North Wind: a solo play of Leaf; only the human is a player (BG Stats
#   and BGG log an automa's score as a comment, not as a person).
# * The solitaire: won or not, no points.
# * The score pad: the game is what the host called the table.
# No BGG ids are shipped: this project could not confirm any from its offline
# sources, and a wrong id files every play under another game. A server's
# operator sets them with LEAFPILE_BGG_IDS (parse_bgg_ids); add them here once
# confirmed.
GAMES: Mapping[str, GameInfo] = {
    "pairs": GameInfo("Pairs", highest_wins=False),
    "venture": GameInfo("Venture (Pairs deck)", highest_wins=True),
    "autumn_leaves": GameInfo("Autumn Leaves (Pairs deck)", highest_wins=False),
    "leaf": GameInfo("Leaf", highest_wins=True),
    "north_wind": GameInfo("Leaf", highest_wins=True, solo=True),
    "autumn_ash": GameInfo("Autumn Ash", highest_wins=True),
    "scorepad": GameInfo("Score pad", highest_wins=True),
    "solitaire": GameInfo(
        "Autumn Leaves (solitaire)", highest_wins=True, no_points=True, solo=True
    ),
}


@dataclass(frozen=True)
class PlayerLine:
    name: str
    score: int | None
    place: int  # our place: equal scores share it
    outcome: str  # won, shared, lost, played


@dataclass(frozen=True)
class Play:
    """One finished table, as the outside world logs a play."""

    play_id: str  # not the table's address: a hash of it (the address is a key)
    game: str
    variant: str
    title: str
    finished_at: datetime  # UTC, naive, as stored
    started_at: datetime | None
    players: tuple[PlayerLine, ...]
    comment: str = ""
    low_wins: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: BoardGameGeek's id of the game: the server's setting, else GAMES's.
    bgg_id: int | None = None

    @property
    def info(self) -> GameInfo:
        return GAMES.get(self.game, GameInfo(self.game, highest_wins=not self.low_wins))

    @property
    def game_name(self) -> str:
        if self.game == "scorepad":
            return scorepad_name(self.title)
        return self.info.name

    @property
    def highest_wins(self) -> bool:
        if self.game == "scorepad":
            return not self.low_wins
        return self.info.highest_wins

    @property
    def duration_min(self) -> int | None:
        if self.started_at is None:
            return None
        minutes = -(-(self.finished_at - self.started_at).total_seconds() // 60)
        return int(minutes) if 0 < minutes <= MAX_DURATION_MIN else None


def play_id(token: str) -> str:
    """A stable id for a table that does not reveal its address."""
    return hashlib.sha256(f"leafpile-play:{token}".encode()).hexdigest()[:20]


def scorepad_name(title: str) -> str:
    """A score pad's game: the table's title, unless it is a default one, in
    whatever language the host's phone named it ("Wertungsblock, 28. Nov.")."""
    name = title.strip()
    return "Score pad" if not name or name.startswith(_scorepad_defaults()) else name


@cache
def _scorepad_defaults() -> tuple[str, ...]:
    """How a score pad's default name begins in each language (``"Score pad, "``):
    the default name's words (``companion/web/table_names.py``) up to its date."""
    from .games.scorepad import KIND  # the games import the rules: only when asked

    starts = set()
    for code in LANGUAGES:
        words = catalog(code)
        game = words.pgettext(KIND.title.id, KIND.title.default)
        starts.add(words.gettext("%(game)s, %(date)s") % {"game": game, "date": ""})
    return tuple(sorted(starts))


def local_time(moment: datetime) -> datetime:
    """A stored UTC time as this server's local time (the table's own evening)."""
    return moment.replace(tzinfo=UTC).astimezone().replace(tzinfo=None)


# --- ranks and winners ----------------------------------------------------------------


def ranked(play: Play) -> list[tuple[PlayerLine, int, bool]]:
    """Each player with their rank and whether they won, best first.

    Our places share a place on equal scores; a play log wants the tie-break
    settled, so among equal places a winner ranks above the others and a
    loser below them (Leaf's tie-break, L5; Pairs' one loser, P2). Nobody
    wins Pairs, so no line is a winner there.
    """

    def order(line: PlayerLine) -> tuple[int, int, int]:
        won = line.outcome in (WON, SHARED)
        return (line.place, 0 if won else 1, 1 if line.outcome == LOST else 0)

    lines = sorted(play.players, key=order)
    out = []
    for line in lines:
        rank = 1 + sum(1 for other in lines if order(other) < order(line))
        out.append((line, rank, line.outcome in (WON, SHARED)))
    return out


# --- BG Stats ---------------------------------------------------------------------------


def bgstats_data(play: Play) -> dict[str, Any]:
    """The JSON BG Stats' push-plays link carries, field for field as documented."""
    info = play.info
    players = []
    for line, rank, winner in ranked(play):
        entry: dict[str, Any] = {
            "name": line.name,
            "sourcePlayerId": f"leafpile:{name_key(line.name)}",
            "rank": rank,
            # Both always present: BG Stats on Android refuses a player without them.
            "winner": winner,
            "startPlayer": info.solo,
        }
        if line.score is not None and not info.no_points:
            entry["score"] = line.score
        players.append(entry)
    game: dict[str, Any] = {
        "name": play.game_name,
        "sourceGameId": f"leafpile:{play.game}",
        "highestWins": play.highest_wins,
        "noPoints": info.no_points,
    }
    if play.bgg_id is not None:
        game["bggId"] = play.bgg_id
    data: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play.play_id,
        "playDate": local_time(play.finished_at).strftime("%Y-%m-%d %H:%M:%S"),
        "location": LOCATION,
        "game": game,
        "players": players,
    }
    if play.duration_min is not None:
        data["durationMin"] = play.duration_min
    if play.variant:
        data["board"] = play.variant
    if play.comment:
        data["comments"] = play.comment
    return data


def bgstats_url(play: Play) -> str:
    """BG Stats' "push plays" link: opens the app's import dialog on the phone."""
    payload = json.dumps(bgstats_data(play), ensure_ascii=False, separators=(",", ":"))
    return BGSTATS_URL + quote(payload, safe="")


# --- BoardGameGeek CSV ------------------------------------------------------------------

#: The columns: the fields of a play on BoardGameGeek, one row per player.
BGG_COLUMNS = (
    "play_id",
    "date",
    "game",
    "bgg_id",
    "location",
    "length_min",
    "quantity",
    "incomplete",
    "nowinstats",
    "comments",
    "player",
    "startposition",
    "score",
    "rank",
    "win",
)


def bgg_rows(play: Play) -> list[dict[str, str]]:
    """One BGG-ready row per player (win 1/0, as BGG writes it)."""
    info = play.info
    rows = []
    for line, rank, winner in ranked(play):
        rows.append(
            {
                "play_id": play.play_id,
                "date": local_time(play.finished_at).strftime("%Y-%m-%d"),
                "game": play.game_name,
                "bgg_id": "" if play.bgg_id is None else str(play.bgg_id),
                "location": LOCATION,
                "length_min": "" if play.duration_min is None else str(play.duration_min),
                "quantity": "1",
                "incomplete": "0",
                # Pairs has no winner (P2): BGG's "no win stats" keeps it out of win rates.
                "nowinstats": "1" if play.game == "pairs" else "0",
                "comments": _csv_safe(play.comment),
                "player": _csv_safe(line.name),
                "startposition": "1" if info.solo else "",
                "score": "" if line.score is None or info.no_points else str(line.score),
                "rank": str(rank),
                "win": "1" if winner else "0",
            }
        )
    return rows


def bgg_csv(plays: Iterable[Play]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=BGG_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    for play in plays:
        writer.writerows(bgg_rows(play))
    return out.getvalue()


def _csv_safe(text: str) -> str:
    # A cell starting with = + - @ would run as a formula in a spreadsheet.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


# --- BoardGameGeek ids -------------------------------------------------------------------

#: Games whose BGG id a server may set (a score pad is whatever game its host
#: named, so it has none).
BGG_ID_GAMES = tuple(key for key in GAMES if key != "scorepad")
LARGEST_BGG_ID = 10_000_000  # BGG's ids are six digits today: room to grow, no junk


def parse_bgg_ids(text: str) -> dict[str, int]:
    """``LEAFPILE_BGG_IDS``: ``game=id`` pairs separated by commas, e.g.
    ``pairs=12345, leaf=67890``. Raises ValueError with a message for the
    operator. ``leaf`` also sets the North Wind (a solo play of Leaf)."""
    ids: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        game, sep, number = (piece.strip() for piece in part.partition("="))
        if not sep or game not in BGG_ID_GAMES:
            raise ValueError(
                f"LEAFPILE_BGG_IDS: {part.strip()[:40]!r} is not game=id with a game among "
                + ", ".join(BGG_ID_GAMES)
            )
        if not number.isdigit() or not 0 < int(number) < LARGEST_BGG_ID:
            raise ValueError(
                f"LEAFPILE_BGG_IDS: the id for {game} must be BoardGameGeek's number, "
                f"not {number[:20]!r}"
            )
        ids[game] = int(number)
    if "leaf" in ids:
        ids.setdefault("north_wind", ids["leaf"])
    return ids


def _bgg_id(game: str, bgg_ids: Mapping[str, int] | None) -> int | None:
    if bgg_ids and game in bgg_ids:
        return bgg_ids[game]
    info = GAMES.get(game)
    return info.bgg_id if info is not None else None


# --- building plays -----------------------------------------------------------------------


def play_from_summary(
    token: str,
    title: str,
    players: Sequence[str],
    summary: Summary,
    finished_at: datetime,
    started_at: datetime | None,
    bgg_ids: Mapping[str, int] | None = None,
    comment: str | None = None,
) -> Play:
    """A finished table's play from its end-screen summary (``bgg_ids``: the
    server's :func:`parse_bgg_ids`). ``comment`` is the summary's headline in
    the words of whoever logs the play (English when not given)."""
    if summary.game == "solitaire" or not summary.standings:
        won = bool(summary.winners)
        lines: tuple[PlayerLine, ...] = tuple(
            PlayerLine(p, None, 1, WON if won else LOST) for p in players[:1]
        )
    else:
        lines = tuple(
            PlayerLine(s.player, s.score, s.place, s.outcome)
            for s in summary.standings
            if s.player in players  # the North Wind is not a person
        )
    return Play(
        play_id=play_id(token),
        game=summary.game,
        variant=summary.variant,
        title=title,
        finished_at=finished_at,
        started_at=started_at,
        players=lines,
        comment=str(summary.headline) if comment is None else comment,
        low_wins=summary.low_wins,
        bgg_id=_bgg_id(summary.game, bgg_ids),
    )


def plays_from_results(
    lines: Iterable[ResultLine],
    started: Mapping[str, datetime] | None = None,
    bgg_ids: Mapping[str, int] | None = None,
) -> list[Play]:
    """Plays from stored result rows (one row per player), oldest first.

    ``started`` maps a table token to its first event's time (the length).
    """
    by_table: dict[str, list[ResultLine]] = {}
    for line in lines:
        by_table.setdefault(line.table_token, []).append(line)
    plays = []
    for token, rows in by_table.items():
        first = rows[0]
        plays.append(
            Play(
                play_id=play_id(token),
                game=first.game,
                variant=first.variant,
                title=first.table_title,
                finished_at=max(r.finished_at for r in rows),
                started_at=(started or {}).get(token),
                players=tuple(PlayerLine(r.player, r.score, r.place, r.outcome) for r in rows),
                low_wins=first.low_wins,
                bgg_id=_bgg_id(first.game, bgg_ids),
            )
        )
    plays.sort(key=lambda p: p.finished_at)
    return plays
