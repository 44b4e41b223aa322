"""The one error catalogue: services raise `ApplicationError`; HTTP and WebSocket render it.

It loads no DRF (`server.drf_errors` renders DRF's own exceptions), so DRF's parsers and
the middleware can raise its errors too.

Every error leaves the server as `{"error": {"code": ..., "message": ..., "extra": {...}}}`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class ErrorCode:
    status: int  # the HTTP status it always has; a socket's error frame carries the code alone
    meaning: str


# Every code the server sends, once, with its one status. `tests/server/test_error_catalogue.py`
# reads every raise site and fails on a code missing here or raised with another status.
CATALOGUE: dict[str, ErrorCode] = {
    # Requests in general
    "malformed_json": ErrorCode(400, "The body (or a socket frame) is not JSON."),
    "invalid_input": ErrorCode(400, "Some fields are not valid: `extra.fields` names each with its problem."),
    "json_too_deep": ErrorCode(400, "The JSON is nested deeper than the server reads."),
    "nul_character": ErrorCode(400, "Text holds the NUL character, which no text field may hold."),
    "bad_limit": ErrorCode(400, "`limit` is not a whole number in the allowed range."),
    "bad_offset": ErrorCode(400, "`offset` is not a whole number of rows to skip."),
    "not_authenticated": ErrorCode(401, "Log in (a session or an API token) first."),
    "authentication_failed": ErrorCode(401, "The credentials sent are not valid."),
    "permission_denied": ErrorCode(403, "The signed-in user may not do that."),
    "not_found": ErrorCode(404, "No such endpoint or object."),
    "method_not_allowed": ErrorCode(405, "The endpoint does not take this HTTP method."),
    "not_acceptable": ErrorCode(406, "The endpoint cannot answer in the format asked for."),
    "body_too_large": ErrorCode(413, "The request body is larger than the server reads."),
    "too_many_fields": ErrorCode(400, "A form body or query with more fields than the server reads."),
    "unsupported_media_type": ErrorCode(415, "A body of a type the endpoint does not read: send JSON."),
    "throttled": ErrorCode(429, "Too many requests: wait as long as Retry-After says."),
    "metrics_forbidden": ErrorCode(403, "`/metrics` is served to the networks in METRICS_ALLOWED_NETWORKS only."),
    # The table's socket (error frames; the status is the HTTP equivalent)
    "frame_rejected": ErrorCode(413, "A socket frame that is binary or too large."),
    "malformed_frame": ErrorCode(400, "A socket frame that is not an object of the documented shape."),
    "unknown_frame": ErrorCode(400, "A socket frame of a type the server does not know."),
    "rate_limited": ErrorCode(429, "More socket frames a second than allowed."),
    "too_many_sockets": ErrorCode(429, "This person or address holds as many sockets at the table as allowed."),
    "too_many_notification_sockets": ErrorCode(429, "This person holds as many notification sockets as allowed."),
    "credential_revoked": ErrorCode(401, "The socket's token or session has ended."),
    # Accounts
    "invalid_credentials": ErrorCode(400, "Wrong username or password."),
    "invalid_name": ErrorCode(400, "A username or display name breaks the naming rules."),
    "invalid_avatar": ErrorCode(400, "No generated avatar has that number."),
    "unknown_language": ErrorCode(400, "A language the site is not written in (`extra.languages` lists them)."),
    "unknown_invitations_from": ErrorCode(400, "`invitations_from` is not one of `extra.choices`."),
    "invalid_sound_volume": ErrorCode(400, "`sound_volume` is not a whole number from 0 to `extra.max`."),
    "cannot_mute_yourself": ErrorCode(400, "A person cannot mute themselves."),
    "cannot_mute_bot": ErrorCode(400, "Bots send no invitations: they cannot be muted."),
    "weak_password": ErrorCode(400, "The new password fails the password validators."),
    "password_required": ErrorCode(400, "Changing the e-mail needs the current password."),
    "wrong_password": ErrorCode(403, "That is not the current password."),
    "username_taken": ErrorCode(409, "The username is taken or looks the same as one in use."),
    "name_taken": ErrorCode(409, "The display name looks the same as a name in use."),
    "name_reserved": ErrorCode(422, "The name is a bot's."),
    "account_in_play": ErrorCode(409, "An account still seated or registered cannot be deleted."),
    "token_not_found": ErrorCode(404, "The user has no API token with that id."),
    "mail_unavailable": ErrorCode(503, "E-mail cannot be queued right now."),
    "tickets_unavailable": ErrorCode(503, "Socket tickets cannot be issued right now; use a token header."),
    # Tables and moves
    "unknown_game": ErrorCode(400, "The request names a game this server does not have (`extra.games` lists them)."),
    "unknown_bot": ErrorCode(400, "The game has no bot of that name."),
    "bad_options": ErrorCode(400, "Table or tournament options the game or format does not take."),
    "bad_player_count": ErrorCode(400, "The game does not take that many players."),
    "bad_seat": ErrorCode(400, "No such seat at this table."),
    "bad_seq": ErrorCode(400, "No event of the match has that sequence number."),
    "bad_expiry": ErrorCode(400, "An invitation's lifetime is out of the allowed range."),
    "bad_contribution": ErrorCode(400, "A shuffle contribution is not 64 lowercase hex digits."),
    "deck_in_rated_match": ErrorCode(400, "A chosen deck is allowed in casual matches only."),
    "bad_spectator_policy": ErrorCode(400, "A spectator policy other than open, delayed or closed."),
    "bad_spectator_delay": ErrorCode(400, "A delayed table's delay is not a whole number of moves in the allowed range."),
    "deck_with_contributed_shuffle": ErrorCode(400, "A chosen deck is not shuffled, so nobody can add to it."),
    "malformed_move": ErrorCode(400, "A move that is not an object of the game's move shape."),
    "unknown_action": ErrorCode(400, "A move whose action the game does not have."),
    "move_too_large": ErrorCode(400, "A move larger than the server reads."),
    "match_unfinished": ErrorCode(400, "A recorded match's moves do not finish it."),
    "not_seated": ErrorCode(403, "Only a person seated at this table may do that."),
    "match_not_running": ErrorCode(409, "The match is not running."),
    "seat_given_up": ErrorCode(409, "The seat is played by the bot already."),
    "seat_not_claimable": ErrorCode(409, "The seat cannot be claimed (yet)."),
    "game_not_cooperative": ErrorCode(409, "Only a cooperative game's team can concede; in another game a player resigns."),
    "concession_already_agreed": ErrorCode(409, "The seat has already agreed to the team's concession."),
    "no_concession": ErrorCode(409, "Nobody has proposed to concede, so there is nothing to withdraw."),
    "not_table_owner": ErrorCode(403, "Only the table's creator may do that."),
    "private_table": ErrorCode(403, "A private table is joined by invitation link only."),
    "private_table_rated": ErrorCode(422, "A private table is casual: it is opened unrated."),
    "match_running": ErrorCode(403, "The match's hidden information is not public until it has ended."),
    "table_closed_to_spectators": ErrorCode(
        403, "The table is closed to all but its seats, organiser (or creator) and staff: a duplicate deal's until the "
        "deal is done, a closed table's until it has finished (`extra.opens_when`: deal_finished or match_finished).",
    ),
    "match_not_found": ErrorCode(404, "No match has that id."),
    "invitation_not_found": ErrorCode(404, "No invitation has that token or id."),
    "match_not_started": ErrorCode(409, "The match has not started yet."),
    "review_not_ready": ErrorCode(404, "A match's review opens once the match has ended."),
    "match_not_open": ErrorCode(409, "The match has already started."),
    "already_seated": ErrorCode(409, "The person already sits at this table."),
    "seat_taken": ErrorCode(409, "Someone already sits in that seat."),
    "table_full": ErrorCode(409, "Every seat is taken."),
    "table_not_full": ErrorCode(409, "A table starts once every seat is taken."),
    "too_many_open_tables": ErrorCode(409, "The person has as many open tables as one may have."),
    "too_many_bot_tables": ErrorCode(409, "The person has as many running tables with no other person as one may have."),
    "too_many_bot_entrants": ErrorCode(409, "The tournament has as many bots as a non-staff organiser may enter."),
    "chosen_deck_not_confirmed": ErrorCode(409, "Sitting at a chosen-deck table needs `confirm_chosen_deck`."),
    "stale_seq": ErrorCode(409, "The match has moved on since the `expected_seq` the client saw."),
    "busy": ErrorCode(409, "The table is too busy to take the move now; send it again."),
    "idempotency_key_reused": ErrorCode(422, "The Idempotency-Key already answered a different move."),
    "position_not_playable": ErrorCode(409, "Practice starts from a position after the deal and before the end."),
    "already_imported": ErrorCode(409, "The imported match is already stored here."),
    "import_refused": ErrorCode(400, "An import file that does not verify or parse (`extra.line` says where)."),
    "invitation_expired": ErrorCode(409, "The invitation has expired."),
    "invitation_revoked": ErrorCode(409, "The table's creator revoked the invitation."),
    "shuffle_not_contributed": ErrorCode(409, "The table's deal is the server's alone: it takes no contributions."),
    "shuffle_dealt": ErrorCode(409, "The cards are dealt: the shuffle takes no more contributions."),
    "rematch_not_possible": ErrorCode(409, "A rematch follows a match played here, once it has ended."),
    "rematch_exists": ErrorCode(409, "The match already has its rematch (`extra` names it)."),
    "rematch_not_accepted": ErrorCode(409, "A rematch starts once every player accepts it."),
    "not_a_rematch": ErrorCode(409, "Only a rematch is started by its players' acceptance."),
    # The games' own refusals (ENGINE.md: `IllegalMove.code`), sent as a move's answer
    "not_your_turn": ErrorCode(409, "It is not this seat's turn."),
    "game_over": ErrorCode(409, "The game has ended."),
    "wrong_phase": ErrorCode(409, "The move does not belong to the phase the game is in."),
    "card_not_in_hand": ErrorCode(409, "The card is not in the seat's hand."),
    "card_not_in_collection": ErrorCode(409, "The card is not in the seat's collection."),
    "card_not_in_market": ErrorCode(409, "The card is not in the market."),
    "card_not_in_row": ErrorCode(409, "The card is not in that row."),
    "card_not_on_discard": ErrorCode(409, "The card is not on the discard pile."),
    "card_not_playable": ErrorCode(409, "The card cannot be played now."),
    "pile_rejects_card": ErrorCode(409, "The pile does not take that card."),
    "bad_pile": ErrorCode(409, "No such pile."),
    "bad_target": ErrorCode(409, "The move's target is not a valid one."),
    "bad_trade": ErrorCode(409, "The trade is not allowed."),
    "bad_reward": ErrorCode(409, "The reward chosen is not on offer."),
    "already_owned": ErrorCode(409, "The seat already owns that."),
    "bid_too_low": ErrorCode(409, "The bid does not beat the current one."),
    "payment_too_low": ErrorCode(409, "The payment does not cover the price."),
    "overpayment": ErrorCode(409, "The payment is more than the price."),
    "insufficient_funds": ErrorCode(409, "The seat cannot pay that much."),
    "deck_empty": ErrorCode(409, "The deck is empty."),
    "tableau_empty": ErrorCode(409, "The tableau is empty."),
    "hand_not_empty": ErrorCode(409, "The move needs an empty hand."),
    "must_keep_a_card": ErrorCode(409, "The seat must keep a card."),
    "must_use_taken_card": ErrorCode(409, "The card just taken must be used."),
    "minimum_not_met": ErrorCode(409, "The turn ends before the minimum number of cards is played."),
    "no_block_card": ErrorCode(409, "The seat has no card that blocks."),
    "no_such_match": ErrorCode(409, "No such match of cards on the table."),
    "not_a_match": ErrorCode(409, "The cards do not match."),
    "not_an_upgrade": ErrorCode(409, "The card does not upgrade the one it replaces."),
    "nothing_to_steal": ErrorCode(409, "There is nothing to steal."),
    "steal_would_win": ErrorCode(409, "A steal may not win the game outright."),
    # Table chat
    "chat_text_empty": ErrorCode(400, "A chat message with nothing in it."),
    "chat_text_too_long": ErrorCode(400, "A chat message longer than allowed (`extra.max`)."),
    "chat_text_invalid": ErrorCode(400, "A chat message with control characters other than newlines."),
    "chat_mute_self": ErrorCode(400, "Nobody mutes themselves."),
    "chat_channel_not_yours": ErrorCode(403, "Players write in the players' channel, everyone else in the spectators'."),
    "chat_hide_forbidden": ErrorCode(403, "Only the tournament's organiser or staff hide chat messages."),
    "chat_not_exportable": ErrorCode(403, "A table's chat is exported once its match is revealed."),
    "chat_message_not_found": ErrorCode(404, "The table's chat has no message of that seq."),
    "user_not_found": ErrorCode(404, "No user has that name or id."),
    "chat_id_reused": ErrorCode(409, "The chat message id already named another message."),
    "chat_busy": ErrorCode(409, "Too many writers at once at the table's chat; send again."),
    "chat_rate_limited": ErrorCode(429, "More chat messages a minute at a table than allowed."),
    "chat_rate_limited_all_tables": ErrorCode(429, "More chat messages a minute at all tables together than allowed."),
    "invitations_rate_limited": ErrorCode(429, "More invitations by name an hour than a sender may send."),
    "invitee_rate_limited": ErrorCode(429, "More invitations by name an hour than a person may receive."),
    "chat_table_sealed": ErrorCode(403, "A duplicate deal's table takes chat from its players only until the deal is done."),
    # Notifications
    "bad_unread": ErrorCode(400, "`unread` is not 1 or 0."),
    "ids_or_all": ErrorCode(400, "Marking read takes `ids` or `all`, one of them."),
    "unknown_kind": ErrorCode(400, "No notification kind has that name."),
    "invitation_for_someone_else": ErrorCode(403, "The invitation was sent to another person."),
    # Tournaments
    "unknown_format": ErrorCode(400, "No tournament format has that name."),
    "bad_field_rules": ErrorCode(400, "The check-in, waitlist, late entry or no-show rules are not valid."),
    "bad_result": ErrorCode(400, "A reported or corrected result that does not fit the table."),
    "bad_forfeit": ErrorCode(400, "A forfeit names nobody seated at the table."),
    "reason_required": ErrorCode(400, "An organiser's correction or disqualification needs a reason."),
    "duplicate_with_contributed_shuffle": ErrorCode(400, "Duplicate deals share one deck per round, so no table adds to it."),
    "bad_position": ErrorCode(400, "`after` or `limit` is out of range."),
    "bad_matches": ErrorCode(400, "`matches` is not a comma-separated list of match ids."),
    "too_many_matches": ErrorCode(400, "More matches asked for at once than allowed."),
    "bad_kinds": ErrorCode(400, "A webhook names event kinds that do not exist."),
    "bad_url": ErrorCode(400, "A webhook URL is not an http or https URL."),
    "webhook_url_refused": ErrorCode(400, "A webhook URL the server will not deliver to (not https, or a private address)."),
    "not_organiser": ErrorCode(403, "Only the tournament's organiser (or staff) may do that."),
    "reentry_not_allowed": ErrorCode(403, "The tournament does not allow re-entry."),
    "tournament_not_found": ErrorCode(404, "No tournament has that id."),
    "round_not_found": ErrorCode(404, "The tournament has no round of that number."),
    "table_not_found": ErrorCode(404, "The round has no table of that number."),
    "entrant_not_found": ErrorCode(404, "The tournament has no such entrant."),
    "not_registered": ErrorCode(404, "The person is not registered for the tournament."),
    "not_in_standings": ErrorCode(404, "The entrant is not in the tournament's standings."),
    "no_bracket": ErrorCode(404, "The tournament's format has no bracket."),
    "not_a_league": ErrorCode(404, "Only a league has a calendar of matchdays."),
    "webhook_not_found": ErrorCode(404, "The tournament has no webhook with that id."),
    "already_registered": ErrorCode(409, "The person is already registered."),
    "already_waitlisted": ErrorCode(409, "The person is already on the waitlist."),
    "already_checked_in": ErrorCode(409, "The person has already checked in."),
    "already_started": ErrorCode(409, "The tournament has already started."),
    "already_withdrawn": ErrorCode(409, "The entrant has already left the tournament."),
    "already_disqualified": ErrorCode(409, "The entrant is already disqualified."),
    "disqualified": ErrorCode(409, "A disqualified person cannot enter again."),
    "registration_closed": ErrorCode(409, "Registration is closed."),
    "tournament_full": ErrorCode(409, "The tournament has as many players as it takes."),
    "too_few_entrants": ErrorCode(409, "A tournament needs at least two entrants to start."),
    "tournament_not_running": ErrorCode(409, "The tournament is not running."),
    "tournament_over": ErrorCode(409, "The tournament has ended."),
    "round_not_started": ErrorCode(409, "The round has not started."),
    "no_rounds_left": ErrorCode(409, "No round is left to play."),
    "cannot_pair": ErrorCode(409, "The format cannot pair this field."),
    "calendar_too_long": ErrorCode(409, "The league's matchdays would run past the year 9999."),
    "correction_conflicts": ErrorCode(409, "Later rounds contradict the corrected result."),
    "check_in_not_open": ErrorCode(409, "Check-in is not open now."),
    "no_check_in": ErrorCode(409, "The tournament has no check-in."),
    "late_entry_closed": ErrorCode(409, "Late entry has closed."),
    "no_reentry": ErrorCode(409, "The format's fixed schedule cannot take players back."),
    "not_dropped": ErrorCode(409, "Only a dropped entrant can re-enter."),
    "use_reentry": ErrorCode(409, "A dropped entrant comes back by re-entering, not registering."),
    # Series of tournaments
    "bad_series_rules": ErrorCode(400, "A series' points table, best N or field scaling that is not valid."),
    "bad_season": ErrorCode(400, "A series' season that ends before it starts."),
    "not_series_organiser": ErrorCode(403, "Only the series' organiser (or staff) may do that."),
    "series_not_found": ErrorCode(404, "No series has that id."),
    "series_event_not_found": ErrorCode(404, "The series does not count that tournament."),
    "already_in_series": ErrorCode(409, "The series already counts the tournament."),
    "tier_in_use": ErrorCode(409, "New rules would drop a tier the series' tournaments are at (`extra.tiers`)."),
    "series_game_mismatch": ErrorCode(422, "The tournament is of a game the series is not of."),
    "outside_season": ErrorCode(422, "The tournament is held outside the series' season."),
    "unknown_tier": ErrorCode(422, "The series' points table has no such tier."),
    # Judging a tournament in a room
    "bad_judge_reason": ErrorCode(400, "A judge call's reason that is not one of the listed ones."),
    "details_too_long": ErrorCode(400, "A judge call's words longer than the limit."),
    "bad_ruling": ErrorCode(400, "A ruling of no known kind."),
    "ruling_note_required": ErrorCode(400, "A ruling without a note, or one longer than the limit."),
    "bad_penalty": ErrorCode(400, "A penalty to someone not seated at the table, or of no known kind."),
    "bad_correction": ErrorCode(400, "A correction ruling with neither or both of the forfeits and the ranks."),
    "bad_extension": ErrorCode(400, "A time extension outside its range of seconds."),
    "not_judge": ErrorCode(403, "Only the tournament's organiser, the judges they named, or staff may do that."),
    "not_at_table": ErrorCode(403, "Only a player seated at the table may call a judge to it."),
    "judge_call_not_yours": ErrorCode(403, "Another judge has taken the call."),
    "judge_not_found": ErrorCode(404, "The person does not judge the tournament."),
    "not_tournament_table": ErrorCode(404, "The table is not one of a tournament's."),
    "judge_call_not_found": ErrorCode(404, "The tournament has no judge call of that number."),
    "already_judge": ErrorCode(409, "The person already judges the tournament."),
    "round_over": ErrorCode(409, "The table's round is over: no judge may be called to it."),
    "judge_already_called": ErrorCode(409, "The caller's earlier call to the table is not resolved yet."),
    "judge_call_taken": ErrorCode(409, "Another judge has taken the call."),
    "judge_call_not_claimed": ErrorCode(409, "A call is taken before it is resolved."),
    "judge_call_resolved": ErrorCode(409, "The call has been resolved."),
    "round_has_no_deadline": ErrorCode(409, "The round has no deadline to extend."),
    "table_not_playing": ErrorCode(409, "The table is not playing: there is no time to extend."),
    "table_time_up": ErrorCode(409, "The table's time is up: it is being played out."),
    "extension_too_long": ErrorCode(409, "The table would play past the longest time added allowed."),
    # Ratings
    "duplicate_player": ErrorCode(400, "A proposed table seats someone twice."),
    "player_not_found": ErrorCode(404, "No player has that name."),
    "not_rated": ErrorCode(404, "The player has no rating in that game and pool yet."),
    "not_cooperative": ErrorCode(404, "Best results are kept for cooperative games only."),
    # The league log
    "bad_sizes": ErrorCode(400, "A consistency proof's old size is past its new size."),
    "beyond_log": ErrorCode(400, "A size past the log's latest checkpoint."),
    "beyond_tree": ErrorCode(400, "An index outside the tree asked about."),
    "bad_cosignature": ErrorCode(400, "A witness's cosignature that does not verify."),
    "unknown_witness": ErrorCode(403, "The key is not one of the log's witnesses."),
    "entry_not_found": ErrorCode(404, "The log holds no such entry."),
    "checkpoint_not_found": ErrorCode(404, "The log signed no checkpoint of that size."),
    "tile_not_found": ErrorCode(404, "The log holds no such tile yet."),
    "log_not_started": ErrorCode(503, "The league log has no checkpoint yet."),
    "log_behind_mirror": ErrorCode(503, "The log in the database is behind its last published checkpoint and cannot recover."),
    "log_mirror_disagrees": ErrorCode(503, "The log's mirror holds a checkpoint this database's log does not extend."),
}


class ApplicationError(Exception):
    """A refused operation: nothing was written. Its HTTP status is its code's, in the catalogue."""

    # `message` is in the reader's language: translated where it is raised (a lazy one where it is
    # a module's constant, rendered in the language active when the answer is written).
    def __init__(self, code: str, message: StrOrPromise, *, extra: dict | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = CATALOGUE[code].status
        self.extra = extra or {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": str(self.message)}
        if self.extra:
            body["extra"] = self.extra
        return body


# Named after the status their codes have, so a raise site reads as what it is; the catalogue
# test holds each call to a code of that status.
def bad_request(code: str, message: StrOrPromise, **extra: Any) -> ApplicationError:
    return ApplicationError(code, message, extra=extra)


def forbidden(code: str, message: StrOrPromise) -> ApplicationError:
    return ApplicationError(code, message)


def not_found(code: str, message: StrOrPromise) -> ApplicationError:
    return ApplicationError(code, message)


def conflict(code: str, message: StrOrPromise, **extra: Any) -> ApplicationError:
    return ApplicationError(code, message, extra=extra)


def match_not_found(match_id: int) -> ApplicationError:
    """The one refusal every app gives for a match id that names no match."""
    return ApplicationError("match_not_found", _("There is no match %(id)s.") % {"id": match_id})


def error_response(code: str, message: StrOrPromise, *, headers: dict | None = None) -> JsonResponse:
    """The catalogue's shape and status for a plain Django view or middleware (outside DRF)."""
    return JsonResponse({"error": {"code": code, "message": str(message)}}, status=CATALOGUE[code].status, headers=headers)


def english_or(detail: str, translated: StrOrPromise) -> str:
    """`detail` for an English reader, `translated` for any other.

    For refusals whose precise wording comes from pure code with no catalogue (an engine's
    IllegalMove, a format's option check): English readers keep that detail, the others get
    the translated general message rather than English.
    """
    return detail if (translation.get_language() or "en").startswith("en") else str(translated)
