"""How the chat door's posts speak of themselves: messages and rooms, never mails
(:class:`referee.judge.door.Words`). Nothing here names a game's notation: the legal
moves in each post show how a move reads."""

from __future__ import annotations

from referee.i18n import domain
from referee.judge.door import Words

_, N_, ngettext = domain("referee")

CHAT_WORDS = Words(
    reply=(
        N_("Type your move here or in the game's room, as your legal moves read (several:"),
        N_("one line `move: ...` each). Commands instead of a move: status, help, undo,"),
        N_("say TEXT. Hidden choices and plans only here, in your direct room."),
    ),
    since=N_("Since your last message:"),
    answer=N_("Type your decision here."),
    current=N_("Here is the current state."),
    stale=N_("this answers a post of an earlier turn (the game is at move {now}): {advice}"),
    stale_advice=N_("type your move as a new message"),
    replayed=N_("this message was already played (log entry {n})"),
    say_footer=N_("(A message from a player, relayed as written. Type your move in the "
                  "game's room or in your direct room; `say TEXT` to answer everyone.)"),
    setting=N_("Your notification setting is now {mode}."),
    help=(
        N_("How to play in chat: type your move as a message, in the game's room or here,"),
        N_("as your legal moves read (several moves as lines `move: ...`). Edits and"),
        N_("replies to an old turn are not played. Commands: status, help, undo (your last"),
        N_("move, if it revealed nothing), say TEXT (to every player). Hidden choices only"),
        N_("here, and in this direct room only: plan (then one line each), nonce WORDS,"),
        N_("notify turn|every|digest, bot LEVEL | bot off, vacation DAYS, rematch, lang de|en."),
    ),
    no_move=N_("No move found in your message."),
    no_line=N_("No line of your message reads as a move, so nothing was played."),
    agree=N_("Type `rematch` in your direct room to agree."),
    language=N_("Your messages are now in {language}."),
    rematch=N_("Everyone agreed: the rematch has started ({file}); its rooms come on "
               "their own."),
    took=None,
    elsewhere=N_("{player}: answered in your direct room with the referee."),
    private_place=N_("`{command}` is for your direct room with the referee, never the "
                     "game's room: nothing was done."),
    hidden_at_table=N_("That is a hidden choice: type it in your direct room with the "
                       "referee, never in the game's room. It was not played."),
)
