"""Notifications: made once per fact and person, pushed to the person's sockets, mailed if chosen.

Every producer comes here with a kind, a key naming the fact and what each person is told
(`notifications_send`). The row's `UNIQUE(user, kind, key)` settles a repeated or concurrent
producer: only the rows this call inserted are pushed and mailed, after commit, so a task run
twice tells nobody twice.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import TypedDict

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import CharField, Exists, F, OuterRef, Value
from django.db.models.constants import OnConflict
from django.db.models.functions import Cast, Concat
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import User
from games.engines import ENGINES
from games.models import Invitation, Match, Seat
from games.state import state_at_head
from games.titles import game_title
from notifications.models import Kind, Notification, NotificationPreference
from notifications.selectors import invitation_wanted, preferences_of
from server import languages, live
from server.celery import send_on_commit
from tournaments.models import Entrant, Judge, JudgeCall, JudgeCallEvent, TournamentEvent

# Rows per INSERT: a round of thousands of people stays under PostgreSQL's 65,535 parameters.
_INSERT_BATCH = 1000


class NotificationData(TypedDict):
    """What a notification shows, the same in the browser and in the mail."""

    title: str
    body: str
    url: str  # a path on this site


def user_group(user_id: int) -> str:
    """The channel-layer group of a person's notification sockets."""
    return f"user.{user_id}"


def _in_own_language(user_ids: Iterable[int], compose: Callable[[int], NotificationData]) -> dict[int, NotificationData]:
    """What each person is told, composed in their own language (their account's, else the site's):
    the text is kept as it is written, for the pages and the mail alike."""
    user_ids = list(user_ids)
    chosen = dict(User.objects.filter(pk__in=user_ids).values_list("pk", "language"))
    told = {}
    for user_id in user_ids:  # in the order given: the rows are inserted in it
        with translation.override(languages.supported(chosen.get(user_id)) or settings.LANGUAGE_CODE):
            told[user_id] = compose(user_id)
    return told


def notifications_send(*, kind: str, key: str, data_by_user: Mapping[int, NotificationData]) -> list[int]:
    """Tells each person in `data_by_user` of the fact `(kind, key)` unless they were told already;
    returns the ids of the notifications made now. After commit, each new one is pushed to its
    person's sockets (browser on for the kind) and mailed (e-mail on, and an address to mail)."""
    if not data_by_user:
        return []
    choices = preferences_of(user_ids=list(data_by_user), kinds=[kind])[kind]
    now = timezone.now()
    rows = [
        Notification(
            user_id=user_id, kind=kind, key=key, data=data, created_at=now,
            read_at=None if choices[user_id]["browser"] else now,
        )
        for user_id, data in data_by_user.items()
    ]
    created = _inserted_unless_present(rows)
    pushed = [user_id for _, user_id in created if choices[user_id]["browser"]]
    mail_wanted = {user_id for user_id, choice in choices.items() if choice["email"]}
    with_address = set(
        User.objects.filter(pk__in=mail_wanted, is_active=True).exclude(email="").values_list("pk", flat=True)
    ) if mail_wanted else set()
    mailed = [notification_id for notification_id, user_id in created if user_id in with_address]
    if pushed:
        transaction.on_commit(lambda: live.groups_hint([user_group(u) for u in pushed], {"type": "notifications.changed"}))
    for notification_id in mailed:
        send_on_commit("notifications.tasks.notification_email_task", notification_id)
    return [notification_id for notification_id, _ in created]


def _inserted_unless_present(rows: list[Notification]) -> list[tuple[int, int]]:
    """Inserts the rows, skipping each whose (user, kind, key) exists; returns (id, user id) of
    those inserted. One `INSERT ... ON CONFLICT DO NOTHING RETURNING` per batch: `bulk_create`
    with `ignore_conflicts` returns no ids, and only the rows inserted here may be sent on."""
    fields = [f for f in Notification._meta.concrete_fields if not f.primary_key]
    returning = [Notification._meta.pk, Notification._meta.get_field("user")]
    created: list[tuple[int, int]] = []
    for start in range(0, len(rows), _INSERT_BATCH):
        # QuerySet._insert, which managers pass on; the stubs leave the private method out.
        inserted = Notification.objects._insert(  # type: ignore[attr-defined]
            rows[start : start + _INSERT_BATCH], fields=fields, returning_fields=returning, on_conflict=OnConflict.IGNORE
        )
        created += [tuple(row) for row in inserted if row]  # a single row's conflict comes back as None
    return created


def notification_email_send(*, notification_id: int) -> bool:
    """Mails a notification to its person, once: the row is claimed before sending (a second
    run finds it claimed) and given back if the mail server refuses, so a retry sends it."""
    claimed = Notification.objects.filter(pk=notification_id, emailed_at__isnull=True).update(emailed_at=timezone.now())
    if not claimed:
        return False
    notification = Notification.objects.select_related("user").get(pk=notification_id)
    if not notification.user.email or not notification.user.is_active:
        return False
    link = f"{settings.SITE_URL}{notification.data['url']}"
    with translation.override(languages.supported(notification.user.language) or settings.LANGUAGE_CODE):
        why = _('You get this mail because you chose e-mails for "%(kind)s": change that on %(url)s.') % {
            "kind": Kind(notification.kind).label, "url": f"{settings.SITE_URL}/account",
        }
    body = f"{notification.data['body']}\n\n{link}\n\n{why}\n"
    try:
        send_mail(f"Card League: {notification.data['title']}", body, None, [notification.user.email])
    except Exception:
        Notification.objects.filter(pk=notification_id).update(emailed_at=None)
        raise
    return True


def notifications_mark_read(*, user: User, ids: Iterable[int] | None = None) -> int:
    """Marks the person's own notifications read (those of `ids`, or all of them); returns how
    many were unread. Ids of anyone else's are ignored, never marked."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=list(ids))
    return unread.update(read_at=timezone.now())


def preferences_set(*, user: User, preferences: Mapping[str, Mapping[str, bool]]) -> None:
    """Stores the person's choices for the kinds given (`{kind: {"browser": b, "email": b}}`);
    a kind left out keeps its choice, a channel left out its current value."""
    current = preferences_of(user_ids=[user.pk], kinds=list(preferences))
    with transaction.atomic():
        for kind, choice in preferences.items():
            merged = {**current[kind][user.pk], **choice}
            NotificationPreference.objects.update_or_create(user=user, kind=kind, defaults=merged)


# --- the producers ---------------------------------------------------------------------------


def match_finished_notify(*, match_id: int) -> list[int]:
    """Tells each person seated at a match that it ended (MATCH_FINISHED_TASKS)."""
    match = Match.objects.filter(pk=match_id, status=Match.Status.FINISHED).first()
    if match is None:
        return []

    def told(user_id: int) -> NotificationData:
        return {
            "title": _("Table %(table)s has ended") % {"table": match.pk},
            "body": _("Your match of %(game)s at table %(table)s has ended: see how it finished.")
            % {"game": game_title(match.game), "table": match.pk},
            "url": f"/tables/{match.pk}",
        }

    people = Seat.objects.filter(match=match, user__isnull=False).values_list("user_id", flat=True)
    return notifications_send(kind=Kind.MATCH_FINISHED, key=str(match.pk), data_by_user=_in_own_language(people, told))


def round_notify(*, tournament_id: int, seq: int) -> list[int]:
    """Tells each person of a round that it is paired (their table, or a bye) or that their table
    has started (a link to it) (TOURNAMENT_EVENT_TASKS). A large round starts in batches: each
    batch's TablesStarted, and the RoundStarted of the last, name the tables they opened. Keyed by
    the event, so a round paired again (an organiser's change) is told again, and a repeated task
    is not."""
    event = TournamentEvent.objects.filter(tournament_id=tournament_id, seq=seq).select_related("tournament").first()
    if event is None or event.type not in ("RoundPaired", "TablesStarted", "RoundStarted"):
        return []
    if event.type == "RoundPaired":
        kind, data_by_user = Kind.ROUND_PAIRED, _round_paired_data(event)
    else:
        kind, data_by_user = Kind.ROUND_STARTED, _round_started_data(event)
    return notifications_send(kind=kind, key=f"{tournament_id}:{seq}", data_by_user=data_by_user)


def _round_paired_data(event: TournamentEvent) -> dict[int, NotificationData]:
    """Each person's table in a RoundPaired (its seats are entrant ids), or their bye."""
    tournament = event.tournament
    tables = {entrant: table["table"] for table in event.data["tables"] for entrant in table["seats"]}
    tables.update({entrant: None for entrant in event.data["byes"]})
    entrant_of = {
        user_id: entrant
        for entrant, user_id in Entrant.objects.filter(pk__in=list(tables), user__isnull=False).values_list("pk", "user_id")
    }

    def told(user_id: int) -> NotificationData:
        table = tables[entrant_of[user_id]]
        return {
            "title": _("Round %(round)s of %(tournament)s is paired")
            % {"round": event.data["round"], "tournament": tournament.name},
            "body": _("You have a bye this round.") if table is None else _("You play at table %(table)s.") % {"table": table},
            "url": f"/tournaments/{tournament.pk}",
        }

    return _in_own_language(entrant_of, told)


def _round_started_data(event: TournamentEvent) -> dict[int, NotificationData]:
    """A link to each person's table in a TablesStarted or RoundStarted (each table's number and
    match), named by its number in the round as RoundPaired told it (not by the match's id)."""
    number_of = {table["match"]: table["table"] for table in event.data["tables"]}
    seats = Seat.objects.filter(match_id__in=list(number_of), user__isnull=False)
    match_of = dict(seats.values_list("user_id", "match_id"))

    def told(user_id: int) -> NotificationData:
        return {
            "title": _("Round %(round)s of %(tournament)s has started")
            % {"round": event.data["round"], "tournament": event.tournament.name},
            "body": _("Your table is open: table %(table)s.") % {"table": number_of[match_of[user_id]]},
            "url": f"/tables/{match_of[user_id]}",
        }

    return _in_own_language(match_of, told)


def judging_notify(*, tournament_id: int, seq: int) -> list[int]:
    """A call for a judge tells the tournament's organiser and judges (not the caller, if one of
    them plays) where to go; a ruling tells the caller what was ruled. Keyed by the step."""
    step = JudgeCallEvent.objects.filter(tournament_id=tournament_id, seq=seq).select_related("tournament").first()
    if step is None or step.type not in ("JudgeCalled", "JudgeCallResolved"):
        return []
    tournament = step.tournament
    if step.type == "JudgeCalled":
        call = step.data
        judges = [tournament.organiser_id, *Judge.objects.filter(tournament=tournament).values_list("user_id", flat=True)]
        caller = User.objects.get(pk=call["caller"])

        def told(user_id: int) -> NotificationData:
            return {
                "title": _("A judge is called to table %(table)s") % {"table": call["table"]},
                "body": _("%(tournament)s, round %(round)s: %(name)s asks for a judge.")
                % {"tournament": tournament.name, "round": call["round"], "name": caller.shown_name},
                "url": f"/tournaments/{tournament.pk}/judging",
            }

        people = [user_id for user_id in dict.fromkeys(judges) if user_id != caller.pk]
        return notifications_send(
            kind=Kind.JUDGE_CALLED, key=f"{tournament_id}:{seq}", data_by_user=_in_own_language(people, told)
        )
    call_row = JudgeCall.objects.get(tournament=tournament, number=step.data["call"])

    def ruled(user_id: int) -> NotificationData:
        return {
            "title": _("A judge ruled on your call at table %(table)s") % {"table": call_row.table_number},
            "body": step.data["ruling"]["note"],
            "url": f"/tables/{call_row.match_id}",
        }

    return notifications_send(
        kind=Kind.JUDGE_RULED, key=f"{tournament_id}:{seq}", data_by_user=_in_own_language([call_row.caller_id], ruled)
    )


def invitation_notify(*, invitation: Invitation) -> list[int]:
    """Tells the person an invitation is addressed to (games.signals.invitation_addressed), with
    a link to the table, where their account sits them down: the invitation's secret is never
    stored, here or anywhere (the server keeps its SHA-256).

    Held while the invitee sits at a sealed match (a duplicate deal other tables still play):
    its title is the inviter's display name, text anyone outside the table chose, and nothing
    from outside reaches a sealed table's players. `held_invitations_notify` tells it once the
    deal is done. (Held rather than told without the name: even a bare "you were invited", and
    when it comes, is a signal a watcher of the deal could send.)

    Never told if the invitee muted its sender or takes no invitations from them
    (`notifications.selectors.invitation_wanted`, issue #39): its sender is answered as for any
    invitation, so nothing tells them which it was; a held one is checked again when told."""
    assert invitation.invitee_id is not None  # sent only for an invitation addressed to a person
    if not invitation_wanted(invitee_id=invitation.invitee_id, sender_id=invitation.created_by_id):
        return []
    if Seat.objects.filter(user_id=invitation.invitee_id, match__sealed=True).exists():
        return []
    match = invitation.match

    def told(user_id: int) -> NotificationData:
        seat = _("any free seat") if invitation.seat is None else _("seat %(seat)s") % {"seat": invitation.seat}
        return {
            "title": _("%(name)s invited you to a table") % {"name": invitation.created_by.shown_name},
            "body": _("A %(game)s table for %(players)s (%(seat)s).")
            % {"game": game_title(match.game), "players": match.players, "seat": seat},
            "url": f"/tables/{match.pk}",
        }

    return notifications_send(
        kind=Kind.INVITED, key=str(invitation.pk), data_by_user=_in_own_language([invitation.invitee_id], told)
    )


def held_invitations_notify(*, match_ids: list[int]) -> list[int]:
    """Tells the players of matches just unsealed the invitations held from them while sealed:
    those still live (not revoked or expired), unless another sealed match still holds them.
    An invitation told already is skipped by the row's `UNIQUE(user, kind, key)`."""
    players = Seat.objects.filter(match_id__in=match_ids, user__isnull=False).values_list("user_id", flat=True)
    held = Invitation.objects.filter(
        invitee_id__in=players, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).select_related("match", "created_by")
    made: list[int] = []
    for invitation in held.order_by("pk"):
        made += invitation_notify(invitation=invitation)
    return made


def turn_notify_sweep() -> int:
    """Tells each person a running table has waited on for `NOTIFY_TURN_DELAY_SECONDS` that it is
    their turn, once per decision (keyed `match:seq`); bots and abandoned seats are not told.
    Run by beat, it covers moves of both lanes (services and games.fastlane) alike.

    Cheap at thousands of running tables: the head's time is its event's (`UNIQUE(match, seq)`
    finds it), and a decision already told is skipped by the (kind, key) index before any state
    is replayed. Returns how many were told.
    """
    if settings.NOTIFY_TURN_DELAY_SECONDS <= 0:
        return 0
    told = Notification.objects.filter(
        kind=Kind.YOUR_TURN,
        key=Concat(Cast(OuterRef("pk"), CharField()), Value(":"), Cast(OuterRef("last_seq"), CharField())),
    )
    waiting = Match.objects.filter(
        status=Match.Status.RUNNING,
        events__seq=F("last_seq"),
        events__created__lte=timezone.now() - timedelta(seconds=settings.NOTIFY_TURN_DELAY_SECONDS),
    ).exclude(Exists(told))
    count = 0
    for match in waiting.only("pk", "game", "last_seq"):
        count += len(_turn_notify(match))
    return count


def _turn_notify(match: Match) -> list[int]:
    to_act = ENGINES[match.game].to_act(state_at_head(match.pk, match.game, match.last_seq))
    people = Seat.objects.filter(match=match, seat__in=to_act, user__isnull=False, abandoned=False)

    def told(user_id: int) -> NotificationData:
        return {
            "title": _("Your turn at table %(table)s") % {"table": match.pk},
            "body": _("Your match of %(game)s at table %(table)s is waiting for your move.")
            % {"game": game_title(match.game), "table": match.pk},
            "url": f"/tables/{match.pk}",
        }

    return notifications_send(
        kind=Kind.YOUR_TURN, key=f"{match.pk}:{match.last_seq}",
        data_by_user=_in_own_language(people.values_list("user_id", flat=True), told),
    )
