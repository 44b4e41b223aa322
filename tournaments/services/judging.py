"""Judging a tournament in a room: the judges an organiser names, calls for a judge from a table,
and time added to a table past the round's deadline.

A call's steps (JudgeCalled, JudgeCallClaimed, JudgeCallResolved) and the judges' names
(JudgeNamed, JudgeRemoved) are the tournament's judging stream (`JudgeCallEvent`), read only by
those who judge and by the table's players. A ruling's effect on play is the tournament's own
public event: a time extension is `TableTimeExtended`, a correction is the `ResultCorrected` or
`ForfeitAwarded` that `results` writes, whose seq the ruling keeps. Every write holds the
tournament's row lock, as the tournament's stream does.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Match
from server.celery import send_on_commit
from server.errors import bad_request, conflict, forbidden, not_found
from tournaments.models import Entrant, Judge, JudgeCall, JudgeCallEvent, RoundTable, Tournament
from tournaments.selectors import judges_for, table_deadline
from tournaments.services._stream import _append, _latest_round, _locked, _schedule, actor_of
from tournaments.services.results import forfeit_award, result_correct

DETAILS_MAX = 500
NOTE_MAX = 1000
# One extension adds a minute to an hour; a table may run at most two hours past the deadline.
EXTENSION_SECONDS_MIN = 60
EXTENSION_SECONDS_MAX = 3600
EXTRA_SECONDS_MAX = 7200
PENALTIES = ("warning",)
RULINGS = ("note", "extension", "penalty", "correction")


def _require_judge(tournament: Tournament, user: User) -> None:
    if not judges_for(tournament, user):
        raise forbidden("not_judge", _("Only the tournament's organiser and the judges they named may do that."))


def _require_head_judge(tournament: Tournament, user: User) -> None:
    if not (user.is_staff or user.pk == tournament.organiser_id):
        raise forbidden("not_organiser", _("Only the tournament's organiser may do that."))


def _judging_append(tournament: Tournament, kind: str, data: dict[str, Any], *, user: User) -> JudgeCallEvent:
    """Appends one step at the head of the judging stream and keeps its projections. Lock held."""
    head = JudgeCallEvent.objects.filter(tournament=tournament).aggregate(head=Max("seq"))["head"] or 0
    row = JudgeCallEvent.objects.create(tournament=tournament, seq=head + 1, type=kind, data=data, actor=actor_of(user))
    _project(tournament, row)
    for path in settings.JUDGING_EVENT_TASKS.get(kind, ()):
        send_on_commit(path, tournament.pk, row.seq)
    return row


def _project(tournament: Tournament, row: JudgeCallEvent) -> None:
    data = row.data
    if row.type == "JudgeNamed":
        Judge.objects.create(tournament=tournament, user_id=data["user"], named_seq=row.seq)
    elif row.type == "JudgeRemoved":
        Judge.objects.filter(tournament=tournament, user_id=data["user"]).delete()
    elif row.type == "JudgeCalled":
        JudgeCall.objects.create(
            tournament=tournament, number=row.seq, round_number=data["round"], table_number=data["table"],
            match_id=data["match"], match_seq=data["match_seq"], reason=data["reason"], details=data["details"],
            caller_id=data["caller"], called_at=row.created, last_seq=row.seq,
        )
    elif row.type == "JudgeCallClaimed":
        JudgeCall.objects.filter(tournament=tournament, number=data["call"]).update(
            status=JudgeCall.Status.CLAIMED, claimed_by_id=data["judge"], claimed_at=row.created, last_seq=row.seq
        )
    elif row.type == "JudgeCallResolved":
        JudgeCall.objects.filter(tournament=tournament, number=data["call"]).update(
            status=JudgeCall.Status.RESOLVED, ruling=data["ruling"], resolved_by_id=data["judge"],
            resolved_at=row.created, last_seq=row.seq,
        )


# --- judges -------------------------------------------------------------------------------------


def judge_name(*, tournament_id: int, user: User, username: str) -> Judge:
    """The organiser names a person to judge the tournament."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_head_judge(tournament, user)
        person = User.objects.filter(username=username, is_active=True).first()
        if person is None:
            raise not_found("user_not_found", _("There is no player %(username)s.") % {"username": repr(username)})
        if Judge.objects.filter(tournament=tournament, user=person).exists():
            raise conflict("already_judge", _("%(username)s already judges this tournament.") % {"username": username})
        _judging_append(tournament, "JudgeNamed", {"user": person.pk}, user=user)
        return Judge.objects.select_related("user").get(tournament=tournament, user=person)


def judge_remove(*, tournament_id: int, user: User, judge_user_id: int) -> None:
    """The organiser takes a judge off the tournament; a call they had taken is left for the
    organiser to resolve."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_head_judge(tournament, user)
        if not Judge.objects.filter(tournament=tournament, user_id=judge_user_id).exists():
            raise not_found("judge_not_found", _("That person does not judge this tournament."))
        _judging_append(tournament, "JudgeRemoved", {"user": judge_user_id}, user=user)


# --- calls --------------------------------------------------------------------------------------


def judge_call(*, tournament_id: int, user: User, match_id: int, reason: str, details: str = "") -> JudgeCall:
    """A player seated at a table of the round being played calls a judge to it. The call keeps
    the table's position in its match's log, so a judge knows what was on the table."""
    if reason not in JudgeCall.Reason.values:
        raise bad_request(
            "bad_judge_reason", _("Give the reason as one of: %(reasons)s.") % {"reasons": ", ".join(JudgeCall.Reason.values)}
        )
    details = details.strip()
    if len(details) > DETAILS_MAX:
        raise bad_request("details_too_long", _("Say it in %(max)s characters or fewer.") % {"max": DETAILS_MAX})
    with transaction.atomic():
        tournament = _locked(tournament_id)
        table = (
            RoundTable.objects.filter(round__tournament=tournament, match_id=match_id).select_related("round").first()
        )
        if table is None:
            raise not_found("table_not_found", _("That table is not one of this tournament's."))
        if not _seated(table, user):
            raise forbidden("not_at_table", _("Only a player seated at the table may call a judge to it."))
        if tournament.status != Tournament.Status.RUNNING or table.round.completed_at is not None:
            raise conflict("round_over", _("The table's round is over: speak to the organiser."))
        if JudgeCall.objects.filter(
            tournament=tournament, match_id=match_id, caller=user, status__in=[JudgeCall.Status.OPEN, JudgeCall.Status.CLAIMED]
        ).exists():
            raise conflict("judge_already_called", _("You have already called a judge to this table."))
        match_seq = Match.objects.filter(pk=match_id).values_list("last_seq", flat=True).get()
        row = _judging_append(
            tournament,
            "JudgeCalled",
            {
                "round": table.round.number, "table": table.number, "match": match_id, "match_seq": match_seq,
                "tournament_seq": tournament.last_seq, "reason": reason, "details": details, "caller": user.pk,
            },
            user=user,
        )
        return JudgeCall.objects.get(tournament=tournament, number=row.seq)


def _seated(table: RoundTable, user: User) -> bool:
    return Entrant.objects.filter(pk__in=table.seats, user=user).exists()


def judge_call_claim(*, tournament_id: int, user: User, call_number: int) -> JudgeCall:
    """A judge takes a call that nobody has taken."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_judge(tournament, user)
        call = _call(tournament, call_number)
        if call.status != JudgeCall.Status.OPEN:
            raise conflict("judge_call_taken", _("Another judge has taken that call."))
        _judging_append(tournament, "JudgeCallClaimed", {"call": call.number, "judge": user.pk}, user=user)
        call.refresh_from_db()
        return call


def judge_call_resolve(*, tournament_id: int, user: User, call_number: int, ruling: dict[str, Any]) -> JudgeCall:
    """The judge who took a call (or the organiser) ends it with a ruling:

    - `note`: what was decided, in words;
    - `extension`: `seconds` added to the table's time (`table_time_extend`);
    - `penalty`: a `warning` to an `entrant` seated at the table;
    - `correction`: the table's result changed, by the organiser alone: the players who
      `forfeited`, or its `ranks` or `team_score` (`results`: ForfeitAwarded, ResultCorrected,
      whose seq the ruling keeps as `correction_seq`).

    Every ruling carries a `note` for the players."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_judge(tournament, user)
        call = _call(tournament, call_number)
        if call.status == JudgeCall.Status.RESOLVED:
            raise conflict("judge_call_resolved", _("That call has been resolved."))
        if call.status == JudgeCall.Status.OPEN:
            raise conflict("judge_call_not_claimed", _("Take the call before you resolve it."))
        if call.claimed_by_id != user.pk and not (user.is_staff or user.pk == tournament.organiser_id):
            raise forbidden("judge_call_not_yours", _("Another judge has taken that call."))
        checked = _ruling_checked(tournament, call, ruling)
        if checked["kind"] == "extension":
            checked["extra_seconds"] = _extend(tournament, call.round_number, call.table_number, checked["seconds"], user=user)
        elif checked["kind"] == "correction":
            checked["correction_seq"] = _correct(tournament, call, checked, user=user)
        _judging_append(tournament, "JudgeCallResolved", {"call": call.number, "judge": user.pk, "ruling": checked}, user=user)
        call.refresh_from_db()
        return call


def _call(tournament: Tournament, number: int) -> JudgeCall:
    call = JudgeCall.objects.filter(tournament=tournament, number=number).first()
    if call is None:
        raise not_found("judge_call_not_found", _("This tournament has no judge call %(call)s.") % {"call": number})
    return call


def _ruling_checked(tournament: Tournament, call: JudgeCall, ruling: Any) -> dict[str, Any]:
    """The ruling as it is kept, or a 400 saying what is wrong with it."""
    if not isinstance(ruling, dict) or ruling.get("kind") not in RULINGS:
        raise bad_request("bad_ruling", _("Give the ruling's kind as one of: %(kinds)s.") % {"kinds": ", ".join(RULINGS)})
    note = ruling.get("note")
    if not isinstance(note, str) or not note.strip() or len(note) > NOTE_MAX:
        raise bad_request(
            "ruling_note_required", _("Say what you ruled, in %(max)s characters or fewer.") % {"max": NOTE_MAX}
        )
    kind = ruling["kind"]
    checked: dict[str, Any] = {"kind": kind, "note": note.strip()}
    if kind == "extension":
        checked["seconds"] = _seconds_checked(ruling.get("seconds"))
    elif kind == "penalty":
        seats = RoundTable.objects.filter(
            round__tournament=tournament, round__number=call.round_number, number=call.table_number
        ).values_list("seats", flat=True).get()
        if ruling.get("entrant") not in seats or ruling.get("penalty") not in PENALTIES:
            raise bad_request(
                "bad_penalty",
                _("Name a player seated at the table and a penalty: %(penalties)s.") % {"penalties": ", ".join(PENALTIES)},
            )
        checked.update(entrant=ruling["entrant"], penalty=ruling["penalty"])
    elif kind == "correction":
        forfeited, ranks, team_score = ruling.get("forfeited"), ruling.get("ranks"), ruling.get("team_score")
        if bool(forfeited) == (ranks is not None or team_score is not None):
            raise bad_request(
                "bad_correction", _("Correct the result with the players who forfeit, or with the table's ranks or team score.")
            )
        checked.update({"forfeited": forfeited} if forfeited else {"ranks": ranks, "team_score": team_score})
    return checked


def _correct(tournament: Tournament, call: JudgeCall, ruling: dict[str, Any], *, user: User) -> int:
    """Changes the table's result through the organiser's own correction (`results`), with the
    ruling's note as its reason; returns the correction's seq in the tournament's stream."""
    round_number, table_number, reason = call.round_number, call.table_number, ruling["note"]
    if "forfeited" in ruling:
        forfeit_award(
            tournament_id=tournament.pk, user=user, round_number=round_number, table_number=table_number,
            forfeited=ruling["forfeited"], reason=reason,
        )
    else:
        result_correct(
            tournament_id=tournament.pk, user=user, round_number=round_number, table_number=table_number,
            ranks=ruling["ranks"], team_score=ruling["team_score"], reason=reason,
        )
    return Tournament.objects.values_list("last_seq", flat=True).get(pk=tournament.pk)


def _seconds_checked(seconds: Any) -> int:
    if not isinstance(seconds, int) or isinstance(seconds, bool) or not EXTENSION_SECONDS_MIN <= seconds <= EXTENSION_SECONDS_MAX:
        raise bad_request(
            "bad_extension",
            _("An extension is %(min)s to %(max)s seconds.") % {"min": EXTENSION_SECONDS_MIN, "max": EXTENSION_SECONDS_MAX},
        )
    return seconds


# --- time extensions ----------------------------------------------------------------------------


def table_time_extend(*, tournament_id: int, user: User, round_number: int, table_number: int, seconds: int) -> int:
    """A judge adds time to a table still playing: it plays on past the round's deadline by all
    the time it was given. Returns the table's time added in all."""
    seconds = _seconds_checked(seconds)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_judge(tournament, user)
        return _extend(tournament, round_number, table_number, seconds, user=user)


def _extend(tournament: Tournament, round_number: int, table_number: int, seconds: int, *, user: User) -> int:
    rnd = _latest_round(tournament)
    table = RoundTable.objects.filter(round=rnd, number=table_number).select_related("match").first()
    if rnd is None or rnd.number != round_number or rnd.started_at is None or table is None:
        raise not_found("table_not_found", _("The round being played has no table %(table)s.") % {"table": table_number})
    if rnd.deadline is None:
        raise conflict("round_has_no_deadline", _("The round has no deadline: its tables have all the time they need."))
    if table.result is not None or table.match is None or table.match.status != Match.Status.RUNNING:
        raise conflict("table_not_playing", _("The table is not playing: there is nothing to extend."))
    deadline = table_deadline(rnd, table.extra_seconds)
    assert deadline is not None
    if deadline <= timezone.now():
        raise conflict("table_time_up", _("The table's time is up: it is being played out."))
    extra = table.extra_seconds + seconds
    if extra > EXTRA_SECONDS_MAX:
        raise conflict(
            "extension_too_long", _("A table may play at most %(max)s seconds past the deadline.") % {"max": EXTRA_SECONDS_MAX}
        )
    _append(
        tournament, "TableTimeExtended",
        {"round": round_number, "table": table_number, "seconds": seconds, "extra_seconds": extra},
        actor=actor_of(user),
    )
    new_deadline = table_deadline(rnd, extra)
    assert new_deadline is not None
    _schedule(tournament.pk, new_deadline)
    return extra
