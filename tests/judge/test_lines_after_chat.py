"""A command after chat, and personal settings (issue 21, the judge's last findings):
chat before a command (`lang de`, `notify every`, `undo`, `say`, `plan`, a game master
command) is passed over like chat before a move, and the answer says which line was
taken; quoted text and attributions are never read; a player's language or mail setting
is answered with one mail, in the new language, and is nobody else's business."""

from __future__ import annotations

import json

from referee.ledger import gamefile
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup
from tests.judge.test_names_and_replacements import GM, gm

TOOK = ("Took line {n} of your mail: `{line}`; the text before it is not read as a move "
        "or a command.")


def flat(text: str) -> str:
    """A mail's text with its wrapping undone (each run of spaces and newlines: one
    space), to find a sentence however long its line was."""
    return " ".join(text.split())


def _meta(setup: Setup) -> list[dict[str, object]]:
    return [e["meta"] for e in json.loads(setup.path.read_text())["log"] if "meta" in e]


def test_lang_after_chat_is_run_with_one_mail_in_the_new_language(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "Thanks, good move!\nlang de"))
    assert _meta(toy) == [{"kind": "lang", "player": "ann", "lang": "de"}]
    assert [m["X-Referee-Player"] for m in out] == ["ann"]  # one mail, to ann only
    text = body_text(out[0])
    assert text.splitlines()[:5] == [
        "Du bist am Zug, ann: ann to take from a pile of 10", "",
        "Zeile 2 deiner Mail gelesen: `lang de`; der Text davor wird nicht als Zug oder",
        "    Befehl gelesen.",
        "Deine Mails sind jetzt auf Deutsch."]


def test_notify_after_chat_is_run_and_told_to_nobody_else(toy: Setup) -> None:
    toy.send(reply(toy.latest("cat"), "notify every"))  # cat hears of every change
    toy.new_mail()
    out = toy.send(reply(toy.latest("ben"), "Hi all,\nThanks, good move!\nnotify digest"))
    assert _meta(toy)[-1] == {"kind": "notify", "player": "ben", "mode": "digest"}
    assert [m["X-Referee-Player"] for m in out] == ["ben"]
    text = body_text(out[0])
    assert TOOK.format(n=3, line="notify digest") in flat(text)
    assert "Your mail setting is now digest." in text
    out = toy.send(reply(toy.latest("ann"), "take 1"))
    cat = body_text(next(m for m in out if m["X-Referee-Player"] == "cat"))
    assert ("Since your last mail:\n  1. you set how often you get mail: every\n"
            "  3. ann played: take 1\n") in cat  # (her own setting: entry 1; ben's: 2)
    assert "setting" not in cat and "digest" not in cat


def test_the_author_reads_their_setting_in_words(toy: Setup) -> None:
    toy.send(reply(toy.latest("ann"), "notify every"))
    toy.send(reply(toy.latest("ann"), "lang de"))
    out = toy.send(reply(toy.latest("ann"), "take 1"))
    ann = body_text(next(m for m in out if m["X-Referee-Player"] == "ann"))
    assert ("Seit deiner letzten Mail:\n  1. du hast eingestellt, wie oft du Mail bekommst: "
            "every\n  2. du hast die Sprache deiner Mails eingestellt: Deutsch\n"
            "  3. ann spielte: take 1\n") in ann
    toy.send(reply(toy.latest("ben"), "take 1"))
    everything = "\n".join(body_text(m) for m in toy.sent())
    assert "changed a setting" not in everything


def test_undo_after_chat_is_run(toy: Setup) -> None:
    toy.send(reply(toy.latest("ann"), "take 1"))
    out = toy.send(reply(toy.latest("ann"), "Oops, wrong pile.\nundo"))
    log = json.loads(toy.path.read_text())["log"]
    assert log[-1]["by"] == "ann" and log[-1]["undo"] == 1
    ann = body_text(next(m for m in out if m["X-Referee-Player"] == "ann"))
    assert TOOK.format(n=2, line="undo") in flat(ann)


def test_say_after_chat_relays_its_own_words_only(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ben"), "Thanks, good move!\nsay Hello all, good luck!"))
    said = {m["X-Referee-Player"]: body_text(m) for m in out}
    assert sorted(said) == ["ann", "cat"]
    assert "ben says: Hello all, good luck!" in said["ann"]
    assert "Thanks" not in said["ann"]


def test_plan_after_chat_sets_the_plan(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ben"), "Off on holiday.\nplan\ntake 1\n\nBye"))
    text = body_text(out[0])
    assert TOOK.format(n=2, line="plan") in flat(text) and "Your plan is set." in text
    assert gamefile.read(toy.path).log[-1]["meta"]["kind"] == "plan"


def test_quoted_text_and_attributions_are_never_read(toy: Setup) -> None:
    raw = reply(toy.latest("ann"), "Thanks, good move!\n\nOn Mon, 6 Jan 2025, Referee "
                "wrote:\n> lang de\n> take 2")
    out = toy.send(raw)
    assert _meta(toy) == [] and "move" not in json.dumps(json.loads(
        toy.path.read_text())["log"])
    text = body_text(out[0])
    assert "Line 1 `Thanks, good move` was not accepted: cannot read" in text


def test_a_game_master_command_after_chat_is_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    setup = Setup(tmp_path)
    setup.options = ("--gm", GM)
    setup.judge()
    setup.new_mail()
    out = gm(setup, "Hello referee,\nplease add a watcher.\nwatch Wendy <wendy@example.org> "
                    "digest")
    assert _meta(setup)[-1] == {"kind": "watcher", "email": "wendy@example.org", "on": True,
                                "name": "Wendy", "digest": "round"}
    answer = body_text(next(m for m in out if GM in str(m["To"])))
    assert TOOK.format(n=3, line="watch Wendy <wendy@example.org> digest") + \
        " > watch Wendy <wendy@example.org> digest Done." in flat(answer)


# --------------------------------------------------------------- `move --from-email`


def test_move_from_email_passes_over_chat_as_the_judge_does(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.mail.test_fresh import MailGame

    game = MailGame(tmp_path)
    ann = game.mail_round()["ann"]
    result = game.move(reply(ann, "Ha, I will take this one!\n- take 2."))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [
        "Took line 2 of your mail: `take 2`; the text before it is not read as a move or a "
        "command.",
        "move 1: ann: take 2"]
    assert [e["move"] for e in gamefile.read(game.path).log] == [{"type": "take", "n": 2}]


def test_move_from_email_names_the_line_of_a_refused_move(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.mail.test_fresh import MailGame

    game = MailGame(tmp_path)
    ann = game.mail_round()["ann"]
    before = game.path.read_bytes()
    result = game.move(reply(ann, "Oh well\ntake 9"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "Took line 2 of your mail: `take 9`" in result.output
    assert game.path.read_bytes() == before
    answer = (tmp_path / "answer-1.mbox").read_text()
    body = flat(answer.split("\n\n", 1)[1])
    assert body.startswith("Your move was not accepted: take 9 Took line 2 of your mail: "
                           "`take 9`; the text before it is not read as a move or a command.")


# --------------------------------------------------------------- a replaced seat's plan


def test_a_replaced_seat_keeps_no_plan_of_the_old_player(tmp_path) -> None:  # type: ignore[no-untyped-def]
    setup = Setup(tmp_path)
    setup.options = ("--gm", GM)
    setup.judge()
    setup.new_mail()
    told = body_text(setup.send(reply(setup.latest("ben"), "plan\ntake 1"))[0])
    assert "Your plan is set." in told
    out = gm(setup, "replace ben Yuki <yuki@example.org>")
    log = gamefile.read(setup.path).log
    assert [(e["by"], e["meta"]) for e in log[-2:]] == [
        ("gm", {"kind": "replace", "player": "ben", "name": "Yuki", "email": "yuki@example.org"}),
        ("ben", {"kind": "plan", "player": "ben", "sealed": log[-1]["meta"]["sealed"]})]
    welcome = flat(body_text(next(m for m in out if "yuki@example.org" in str(m["To"]))))
    assert ("Ben's plan for the seat is withdrawn: you have no plan, so no move is played "
            "for you until you write one (reply `plan`).") in welcome
    assert "set your plan" not in welcome
    out = setup.send(reply(setup.latest("ann"), "take 2"))
    assert [e.get("move") for e in gamefile.read(setup.path).log if "move" in e] == [
        {"type": "take", "n": 2}]  # ben's plan did not play for Yuki
    yuki = body_text(next(m for m in out if m["X-Referee-Player"] == "ben"))
    assert yuki.splitlines()[0] == "Your turn, Yuki (seat ben): ben to take from a pile of 8"


# --------------------------------------------------------------- the game's events


def test_a_german_mail_tells_the_games_events_in_german(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from referee import i18n
    from referee.games.staufer import texts
    from tests import plangames as pg

    setup = Setup(tmp_path, game="staufer", gid="st-1")

    def scores(after, mover, move) -> bool:  # type: ignore[no-untyped-def]
        return any(" +" in e and "(" in e for e in after.state.events)  # the first points

    mover, move, _ = pg.play_until(setup.path, "p0", scores, seed="judge-seed")
    setup.judge()
    setup.send(reply(setup.latest("ann"), "lang de"))
    setup.send(reply(setup.latest("ann"), "notify every"))
    match = pg.state(setup.path, "judge-seed")
    typed = pg.text(match, move)
    setup.send(reply(setup.latest(mover), typed))
    after = pg.state(setup.path, "judge-seed")
    english = after.state.events[len(match.state.events):]
    with i18n.language("de"):
        german = [texts.event_text(e) for e in english]
    assert german != english and all("chest" not in e and "contract:" not in e
                                     for e in german)
    ann = body_text(setup.latest("ann"))
    told = ann.split("Seit deiner letzten Mail:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.removeprefix("      - ") for line in told.splitlines()
            if line.startswith("      - ")] == german


def test_contract_cards_are_named_by_their_words_in_the_scoring() -> None:
    from referee import i18n
    from referee.games.staufer.texts import event_text, final_part

    assert final_part("contract:region-milano") == "Region Milano contract"
    assert final_part("contract:blue-2-opposite") == "pattern: 2 opposite regions"
    assert event_text("ann +16 (contract:red-pairs)") == \
        "ann +16 (office seats: pairs of equal cost)"
    with i18n.language("de"):
        assert final_part("contract:region-milano") == "Auftrag Region Mailand"
        assert final_part("contract:blue-2-opposite") == "Muster: 2 gegenüberliegende Regionen"
        assert event_text("ann +16 (contract:red-pairs)") == \
            "ann +16 (Amtssitze: Paare gleicher Kosten)"
        assert event_text("ann +5 (orange chest)") == "ann +5 (orange Truhe)"


def test_events_are_told_after_the_game_keeps_only_its_last_ones(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Dynasties keeps its last 40 events: a move then adds events without the list
    growing, and the mails still tell them (they told none for the rest of a game)."""
    from tests import plangames as pg

    setup = Setup(tmp_path, game="dynasties", gid="dy-1")
    last: list[list[str]] = [[]]

    def full(after, mover, move) -> bool:  # type: ignore[no-untyped-def]
        before, now = last[0], list(after.state.events)
        last[0] = now
        return len(before) == len(now) == 40 and now[-1] != before[-1]

    mover, move, _ = pg.play_until(setup.path, "p0", full, seed="judge-seed")
    setup.judge()
    other = next(p for p in ("ann", "ben", "cat") if p != mover)
    setup.send(reply(setup.latest(other), "notify every"))
    match = pg.state(setup.path, "judge-seed")
    before = list(match.state.events)
    setup.send(reply(setup.latest(mover), pg.text(match, move)))
    now = list(pg.state(setup.path, "judge-seed").state.events)
    added = now[40 - next(k for k in range(41) if now[:40 - k] == before[k:]):]
    assert added and len(now) == 40
    told = body_text(setup.latest(other)).split("Since your last mail:\n", 1)[1]
    lines = [line.removeprefix("      - ") for line in told.split("\n\n", 1)[0].splitlines()
             if line.startswith("      - ")]
    assert lines == added


def test_a_count_of_cards_is_told_as_one_card_or_several() -> None:
    from referee import i18n
    from referee.games.dynasties import GAME

    event = GAME.event_text
    assert event("cat drew 1 scoring card(s)") == "cat drew 1 scoring card"
    assert event("ann drew 2 action card(s)") == "ann drew 2 action cards"
    with i18n.language("de"):
        assert event("cat drew 1 scoring card(s)") == "cat zog 1 Wertungskarte"
        assert event("ann drew 2 action card(s)") == "ann zog 2 Aktionskarten"


def test_a_stale_command_after_chat_is_named_as_a_command(toy: Setup) -> None:
    old = toy.latest("ann")
    toy.send(reply(old, "take 1"))
    for pid in ("ben", "cat"):
        toy.send(reply(toy.latest(pid), "take 1"))
    out = toy.send(reply(old, "Sorry, one more thing:\nnotify every"))
    assert _meta(toy) == []
    assert "`notify` not done: your mail answers the referee's mail of move 0, but the game " \
        "is at move 3" in flat(body_text(out[0]))
