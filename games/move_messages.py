"""The engines' refusals (`IllegalMove`) in the reader's language.

Engines are pure Python with no catalogue: their messages are English, with the move's details.
A reader of another language gets the general message of the refusal's code from this table;
`tests/games/test_move_messages.py` holds it to every code an engine raises.
"""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.engines import IllegalMove
from server.errors import english_or

MOVE_MESSAGES = {
    "already_owned": _("You already own that."),
    "bad_pile": _("There is no such pile."),
    "bad_reward": _("That reward is not on offer."),
    "bad_target": _("That is not a seat you can aim at."),
    "bad_trade": _("That trade is not allowed."),
    "bid_too_low": _("Your bid does not beat the current one."),
    "card_not_in_collection": _("That card is not in your collection."),
    "card_not_in_hand": _("That card is not in your hand."),
    "card_not_in_market": _("That card is not in the market."),
    "card_not_in_row": _("That card is not in the row."),
    "card_not_on_discard": _("That card is not on top of your discard pile."),
    "card_not_playable": _("That card cannot be used now."),
    "deck_empty": _("The deck is empty."),
    "game_over": _("The game has ended."),
    "game_not_cooperative": _("Only the team of a cooperative game can concede."),
    "hand_not_empty": _("You still hold cards: end your turn with a discard."),
    "insufficient_funds": _("You cannot pay that much."),
    "malformed_move": _("The move is not in the game's move shape."),
    "minimum_not_met": _("Play more cards before you end your turn."),
    "must_keep_a_card": _("You must keep a card to discard."),
    "must_use_taken_card": _("Use the card you took first."),
    "no_block_card": _("You hold no Block card."),
    "no_such_match": _("There is no such set on the table."),
    "not_a_match": _("Those cards do not make a set."),
    "not_an_upgrade": _("That card does not make the set stronger."),
    "not_your_turn": _("It is not your turn."),
    "nothing_to_steal": _("There is nothing to steal."),
    "overpayment": _("That is more than the price."),
    "payment_too_low": _("That does not cover the price."),
    "pile_rejects_card": _("That pile does not take that card."),
    "steal_would_win": _("A steal may not give you a winning set."),
    "tableau_empty": _("The tableau is empty."),
    "unknown_action": _("The game has no such move."),
    "wrong_phase": _("That move does not belong to this part of the game."),
}


def move_message(refusal: IllegalMove) -> str:
    """The refusal's message for the reader: the engine's own detail in English, else the code's."""
    return english_or(refusal.message, MOVE_MESSAGES[refusal.code])
