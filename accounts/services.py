"""Accounts: registration, login (session for the browser, token for the API), API tokens and
socket tickets, logout; changing a password, names, e-mail, avatar and whose invitations reach
one; muting a sender of invitations; password resets by e-mail; deleting an account (anonymised:
its matches stay, credited to "deleted player N")."""
from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import timedelta
from importlib import import_module
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, authenticate, password_validation
from django.contrib.auth.forms import PasswordResetForm
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.crypto import constant_time_compare
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from accounts.authentication import user_for_token_hash
from accounts.avatars import AVATAR_VARIANTS
from accounts.models import SOUND_VOLUME_MAX, ApiToken, InvitationsFrom, MutedSender, RetiredName, User
from accounts.names import USERNAME_MAX, invisible_problem, name_key, username_problem
from accounts.signals import account_deleted
from accounts.tokens import key_hash, key_new
from games.bots import BOTS
from server.celery import app as celery_app
from server.errors import ApplicationError, bad_request, conflict, english_or, forbidden, not_found

log = logging.getLogger(__name__)

# Bots sit at tables by name: nobody may be seen by one of those names.
_BOT_KEYS = frozenset(name_key(bot) for bots in BOTS.values() for bot in bots)
# A deleted account is shown as "deleted player <id>": nobody may take a name that reads so.
_DELETED_PREFIX = name_key("deleted player")


def user_register(*, username: str, password: str, display_name: str = "", email: str = "",
                  language: str = "") -> User:
    """Creates a user after the name checks (`user_names_check`) and Django's password validators.
    `language`: the one the visitor read the site in (a code of LANGUAGES), so it follows them."""
    user_names_check(username=username, display_name=display_name)
    candidate = User(username=username, display_name=display_name, email=User.objects.normalize_email(email),
                     language=language if language in dict(settings.LANGUAGES) else "")
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as exc:
        raise bad_request("weak_password", " ".join(exc.messages)) from None
    candidate.set_password(password)
    try:
        with transaction.atomic():
            candidate.save()
    except IntegrityError:  # a sign-up of the same name committed meanwhile
        raise _taken("username") from None
    return candidate


def user_names_check(*, username: str, display_name: str, user: User | None = None) -> None:
    """Refuses names that pass for someone else's: a bot's (422 `name_reserved`), or another
    user's username or display name, compared by `name_key` (409 `username_taken` /
    `name_taken`). A user's own two names may be the same name; `user` is the one renamed.
    """
    problem = username_problem(username)
    if problem is not None:
        raise bad_request(
            "invalid_name",
            english_or(
                f"{problem}.",
                _("A username has 1 to %(max)s characters: letters, digits and . + - _") % {"max": USERNAME_MAX},
            ),
            field="username",
        )
    keys = {"username": name_key(username), "display_name": name_key(display_name)}
    if display_name and (not keys["display_name"] or invisible_problem(display_name) is not None):
        raise bad_request("invalid_name", _("A display name needs visible letters or digits."), field="display_name")
    if "@" in display_name:
        raise bad_request("invalid_name", _("@ marks players of other servers (name@server)."), field="display_name")
    for field, key in keys.items():
        if key in _BOT_KEYS:
            raise ApplicationError("name_reserved", _("That name is a bot's."), extra={"field": field})
        if key.startswith(_DELETED_PREFIX):
            raise ApplicationError("name_reserved", _("Names of deleted accounts are the server's."),
                                   extra={"field": field})
    others = User.objects.exclude(pk=user.pk) if user is not None else User.objects.all()
    for field, key in keys.items():
        if key and others.filter(Q(username_key=key) | Q(display_key=key)).exists():
            raise _taken(field)
        # A deleted account's names stay out of reach: its old matches and tournament events were
        # written under them, and a newcomer taking one would pass for the person who left.
        if key and RetiredName.objects.filter(key_sha256=_retired_digest(key)).exists():
            raise _taken(field)


def _retired_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _taken(field: str) -> ApplicationError:
    if field == "username":
        return conflict("username_taken", _("That username is taken, or looks the same as a name in use."), field=field)
    return conflict("name_taken", _("That display name looks the same as a name in use."), field=field)


def user_authenticate(*, request, username: str, password: str) -> User:
    """The same answer for an unknown user and a wrong password, so logins reveal no usernames."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ApplicationError("invalid_credentials", _("Wrong username or password."))
    return user


def user_token(*, user: User) -> str:
    """A new API token for `user`, valid for `API_TOKEN_DAYS`. Its key is returned this once and
    kept only as a hash. The user's expired tokens go meanwhile, so they do not pile up."""
    now = timezone.now()
    ApiToken.objects.filter(user=user, expires__lte=now).delete()
    key = key_new()
    ApiToken.objects.create(user=user, key_hash=key_hash(key), expires=now + timedelta(days=settings.API_TOKEN_DAYS))
    return key


def user_token_revoke(*, user: User, token_id: int) -> None:
    """Revokes one of `user`'s tokens; another user's is as unknown as one that never was (404)."""
    deleted, _by_model = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise not_found("token_not_found", _("You have no token %(token_id)s.") % {"token_id": token_id})


def user_tokens_revoke(*, user: User) -> None:
    """Revokes every token of `user` (logging out logs out everywhere)."""
    ApiToken.objects.filter(user=user).delete()


def user_password_check(*, user: User, password: str) -> None:
    """Refuses (403 `wrong_password`) unless `password` is `user`'s: the operations that could
    lock the owner out (new password, new e-mail, deletion) need it, not just a session."""
    if not user.check_password(password):
        raise forbidden("wrong_password", _("That is not your current password."))


def user_password_change(*, user: User, old_password: str, new_password: str) -> str:
    """Sets a new password after the old one and Django's validators; revokes every API token of
    the user and returns a new one. Other sessions end by themselves: Django ties each session to
    the password's hash (the caller keeps its own with `update_session_auth_hash`)."""
    user_password_check(user=user, password=old_password)
    _password_validate(new_password, user=user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        user_tokens_revoke(user=user)
        return user_token(user=user)


def _password_validate(password: str, *, user: User) -> None:
    try:
        password_validation.validate_password(password, user=user)
    except ValidationError as exc:
        raise bad_request("weak_password", " ".join(exc.messages), field="new_password") from None


def user_profile_update(
    *, user: User, display_name: str | None = None, email: str | None = None, avatar: int | None = None,
    password: str | None = None, language: str | None = None, invitations_from: str | None = None,
    sound_volume: int | None = None,
) -> User:
    """Changes what the user gave (None: unchanged). A new display name passes `user_names_check`;
    a new e-mail needs the current password, since whoever holds the e-mail can reset the password
    (a stolen session must not be able to make itself a permanent key)."""
    fields = []
    if display_name is not None and display_name != user.display_name:
        user_names_check(username=user.username, display_name=display_name, user=user)
        user.display_name = display_name
        fields.append("display_name")
    if email is not None:
        email = User.objects.normalize_email(email)
        if email != user.email:
            if password is None:
                raise bad_request("password_required", _("Give your current password to change your e-mail."),
                                  field="password")
            user_password_check(user=user, password=password)
            user.email = email
            fields.append("email")
    if avatar is not None:
        if not 0 <= avatar < AVATAR_VARIANTS:
            raise bad_request(
                "invalid_avatar",
                _("Avatars are numbered 0 to %(last)s.") % {"last": AVATAR_VARIANTS - 1},
                field="avatar",
            )
        user.avatar = avatar
        fields.append("avatar")
    if language is not None:
        if language and language not in dict(settings.LANGUAGES):
            raise bad_request("unknown_language", _("The site has no such language."), field="language",
                              languages=[code for code, _name in settings.LANGUAGES])
        user.language = language
        fields.append("language")
    if invitations_from is not None:
        if invitations_from not in InvitationsFrom.values:
            raise bad_request("unknown_invitations_from", _("Invitations come from anyone, people you have played "
                              "with, or nobody."), field="invitations_from", choices=InvitationsFrom.values)
        user.invitations_from = invitations_from
        fields.append("invitations_from")
    if sound_volume is not None:
        if not 0 <= sound_volume <= SOUND_VOLUME_MAX:
            raise bad_request("invalid_sound_volume", _("The sound volume is a number from 0 (muted) to %(max)s.")
                              % {"max": SOUND_VOLUME_MAX}, field="sound_volume", max=SOUND_VOLUME_MAX)
        user.sound_volume = sound_volume
        fields.append("sound_volume")
    if fields:
        user.save(update_fields=fields)
    return user


def sender_mute(*, user: User, username: str) -> MutedSender:
    """`user` mutes a person: that person's invitations by name never reach them (their sender
    is not told). Muting someone muted already changes nothing."""
    sender = _sender_named(user, username)
    muted, _created = MutedSender.objects.get_or_create(user=user, sender=sender)
    return muted


def sender_unmute(*, user: User, username: str) -> None:
    """`user` hears from a muted person again; unmuting someone not muted changes nothing."""
    MutedSender.objects.filter(user=user, sender=_sender_named(user, username, active=False)).delete()


def _sender_named(user: User, username: str, *, active: bool = True) -> User:
    """The person `user` names to mute: a person (a bot sends no invitations), and not themselves;
    an active account, unless `active` is False (unmuting someone who has left since)."""
    if name_key(username) in _BOT_KEYS:
        raise bad_request("cannot_mute_bot", _("A bot sends no invitations: there is nothing to mute."))
    people = User.objects.filter(username=username)
    sender = (people.filter(is_active=True) if active else people).first()
    if sender is None:
        raise not_found("user_not_found", _("There is no player %(username)s.") % {"username": repr(username)})
    if sender.pk == user.pk:
        raise bad_request("cannot_mute_yourself", _("You cannot mute yourself."))
    return sender


def password_reset_request(*, email: str) -> None:
    """Queues the reset e-mail (`password_reset_send`) and returns at once: a request for an
    e-mail no account has takes as long as one that sends a mail, so timing tells nothing either.
    Without SITE_URL there is no address to link to: nothing is queued (503), and the log says why."""
    if not settings.SITE_URL:
        log.error("password reset asked for, but SITE_URL is not set: no reset link can be sent")
        raise ApplicationError("mail_unavailable", _("E-mail cannot be sent right now; try again later."))
    try:
        # Bound by name: the task module imports this one, and this one must not import it back.
        # The mail is written in the language the request was answered in.
        celery_app.tasks["accounts.tasks.password_reset_email_task"].delay(
            email, translation.get_language() or settings.LANGUAGE_CODE
        )
    except Exception:  # noqa: BLE001 - the broker's own connection errors
        raise ApplicationError("mail_unavailable", _("E-mail cannot be sent right now; try again later.")) from None


class _ResetMailForm(PasswordResetForm):
    """Django's reset form, writing each account's e-mail in that account's language (none
    chosen: the language the request was made in)."""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        with translation.override(context["user"].language or translation.get_language()):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)


def password_reset_send(*, email: str, language: str | None = None) -> int:
    """Sends each active account with this e-mail (and a usable password) a link to set a new
    password, made of Django's own token (valid PASSWORD_RESET_TIMEOUT seconds, spent once the
    password or the last login changes), in the account's language, else `language` (the
    requester's). The link is on SITE_URL, never on a host a request named (a forged Host
    would send the token to its own server). Returns how many accounts were sent one."""
    site = urlsplit(settings.SITE_URL)
    if not site.netloc:
        raise ImproperlyConfigured("SITE_URL must be set for password reset links")
    form = _ResetMailForm(data={"email": email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(form.cleaned_data["email"]))
    with translation.override(language or settings.LANGUAGE_CODE):
        form.save(
            domain_override=site.netloc,
            use_https=site.scheme == "https",
            subject_template_name="frontend/email/password_reset_subject.txt",
            email_template_name="frontend/email/password_reset_email.txt",
            # The stubs type this template context as str values only; Django takes any value.
            extra_email_context={"timeout_hours": max(1, round(settings.PASSWORD_RESET_TIMEOUT / 3600))},  # type: ignore[dict-item]
        )
    return len(users)


def user_delete(*, user: User, password: str) -> None:
    """Deletes the account by anonymising it, after its password: its seats, tournaments and
    ratings stay (they are other players' history too, and the event store never changes), now
    credited to "deleted player <id>". The names it used are retired (`RetiredName`); the e-mail
    is cleared, the password made unusable, every token and session ends.

    Refused (409 `account_in_play`) while the account holds a seat that other people wait on or
    takes part in a tournament still to be played: they would wait for someone who cannot come.
    Locks the user's row so a concurrent rename or second deletion waits."""
    user_password_check(user=user, password=password)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        _refuse_if_in_play(locked)
        for key in {locked.username_key, locked.display_key} - {""}:
            RetiredName.objects.get_or_create(key_sha256=_retired_digest(key))
        locked.username = f"deleted-player-{locked.pk}"
        locked.display_name = f"deleted player {locked.pk}"
        locked.email = locked.first_name = locked.last_name = ""
        locked.avatar = 0
        locked.is_active = locked.is_staff = locked.is_superuser = False
        locked.set_unusable_password()  # also ends every session: they carry the old password's hash
        locked.save()
        locked.groups.clear()
        locked.user_permissions.clear()
        user_tokens_revoke(user=locked)
        # Whom they muted and who muted them says something about people: it goes with the account.
        MutedSender.objects.filter(Q(user=locked) | Q(sender=locked)).delete()
        # Apps that copied the person's name (a tournament's entrant) replace the copy.
        account_deleted.send(sender=User, user=locked)
    user.refresh_from_db()


def _refuse_if_in_play(user: User) -> None:
    """409 `account_in_play` naming what the user must leave first, as each app's check in
    ACCOUNT_IN_PLAY_CHECKS finds it (the tables others wait on, the tournaments still to be
    played): asked by name, so accounts reads no other app's tables. Each can be left by the user."""
    waiting: dict[str, list[int]] = {}
    for path in settings.ACCOUNT_IN_PLAY_CHECKS:
        waiting.update(import_string(path)(user))
    if any(waiting.values()):
        raise conflict(
            "account_in_play",
            _(
                "Other people are waiting on you: leave or finish your tables and withdraw from your tournaments "
                "before you delete the account."
            ),
            **waiting,
        )


def socket_ticket_issue(*, user: User, token_key: str | None, session_key: str | None) -> str:
    """A ticket that opens one socket as `user` within `SOCKET_TICKET_SECONDS`: a URL that may be
    logged on the way holds nothing lasting. Made with a token, it dies with that token; made in
    a session, with that session (a logout, or a password changed elsewhere)."""
    ticket = secrets.token_urlsafe(32)
    issued = {"user": user.pk, "token": key_hash(token_key) if token_key else None,
              "session": None if token_key else session_key}
    try:
        cache.set(_ticket_cache_key(ticket), issued, settings.SOCKET_TICKET_SECONDS)
    except Exception:  # noqa: BLE001 - the cache backend's own connection errors
        raise ApplicationError(
            "tickets_unavailable",
            _("Socket tickets are unavailable right now; send the token in an Authorization header instead."),
        ) from None
    return ticket


def socket_ticket_redeem(*, ticket: str) -> tuple[User, str | None] | None:
    """The active user a ticket was issued to, and the digest of the token it was made with (None:
    made in a session), the first time it is shown; None after that, after it expired, or once
    that token is revoked or expired, or that session logged out or outlived a password change."""
    cache_key = _ticket_cache_key(ticket)
    issued = cache.get(cache_key)
    if issued is None or not cache.delete(cache_key):  # of two redeeming at once, one deletes it
        return None
    if issued["token"] is not None:
        user = user_for_token_hash(issued["token"])
        return (user, issued["token"]) if user is not None and user.pk == issued["user"] else None
    if not socket_credential_valid(user_id=issued["user"], token_sha256=None, session_key=issued.get("session")):
        return None
    user = User.objects.filter(pk=issued["user"], is_active=True).first()
    return (user, None) if user is not None else None


def socket_credential_valid(*, user_id: int, token_sha256: str | None, session_key: str | None) -> bool:
    """Whether an open socket's user may still be served: the API token it opened with is neither
    revoked nor expired, or else the session it opened in is still logged in as that user."""
    if token_sha256 is not None:
        user = user_for_token_hash(token_sha256)
        return user is not None and user.pk == user_id
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    if session.get(SESSION_KEY) != str(user_id):
        return False
    user = User.objects.filter(pk=user_id, is_active=True).first()
    # As Django's own session check: a password changed since (or an account deleted) ends it.
    return user is not None and constant_time_compare(session.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())


def _ticket_cache_key(ticket: str) -> str:
    return f"socket_ticket_{key_hash(ticket)}"  # the cache holds no ticket that works either
