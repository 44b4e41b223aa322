"""Web pages; thin: they read through selectors, write through services, and render templates.

The pages are server-rendered shells; each one's ES module (static/frontend/js/) fetches the
JSON API and the table's WebSocket for everything that changes while the page is open.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext, pgettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_POST

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.avatars import AVATAR_VARIANTS, avatar_svg
from accounts.models import User
from chat import selectors as chat_selectors
from frontend import rulebook, venue
from frontend.forms import (
    AccountDeleteForm,
    AvatarForm,
    InvitationsFromForm,
    LoginForm,
    MuteForm,
    PasswordChangeForm,
    ProfileForm,
    SignupForm,
    UnmuteForm,
)
from games import selectors
from games.bots import BOTS, STRONG_BOT
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    Match,
    Seat,
)
from games.titles import GAME_TITLES
from notifications import selectors as notification_selectors
from notifications.models import Kind
from ratings import selectors as rating_selectors
from ratings.models import Pool
from server import languages
from server.db_router import replica_reads
from server.errors import ApplicationError, error_response
from server.limits import throttle_wait
from tournaments import selectors as tournament_selectors
from tournaments.formats import FORMATS

# The game-specific options the lobby's form offers (each engine's rules page lists them).
GAME_OPTIONS = {"sequence-stacks": [{"key": "turn_limit", "label": gettext_lazy("Turn limit"), "min": 1, "max": 1000}]}


def _games() -> list[dict[str, Any]]:
    games = []
    for game in selectors.game_list():
        slug = game["slug"]
        games.append({**game, "title": GAME_TITLES.get(slug, slug), "options": GAME_OPTIONS.get(slug, [])})
    return games


def _page_user(request: HttpRequest) -> dict[str, Any] | None:
    user = request.user
    if not user.is_authenticated:
        return None
    return {"id": user.pk, "username": user.username, "name": user.shown_name, "avatar": user.avatar}


def _next_url(request: HttpRequest, default: str = "/") -> str:
    target = request.POST.get("next") or request.GET.get("next") or default
    hosts = {request.get_host()}
    if url_has_allowed_host_and_scheme(target, allowed_hosts=hosts, require_https=request.is_secure()):
        return target
    return default


def _page(
    request: HttpRequest, template: str, context: dict[str, Any] | None = None, **kwargs: Any
) -> HttpResponse:
    base = {"page_user": _page_user(request), "games": _games()}
    return render(request, template, {**base, **(context or {})}, **kwargs)


# --- lobby and accounts -----------------------------------------------------------------------


# The delay a table's or tournament's form offers for delayed spectators (games.models).
SPECTATOR_DELAY = {"min": SPECTATOR_DELAY_MOVES_MIN, "max": SPECTATOR_DELAY_MOVES_MAX, "default": SPECTATOR_DELAY_MOVES_DEFAULT}


@ensure_csrf_cookie
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The lobby: open and running tables per game, and a form to open a table."""
    clocks = [
        (None, _("No clock")), (30, _("30 seconds a move")), (60, _("1 minute a move")), (300, _("5 minutes a move")),
        (86400, _("1 day a move")),
    ]
    games = [format_html("<strong>{}</strong>", game["title"]) for game in _games()]
    # Safe: each title went through format_html, and the catalogue is ours.
    either = mark_safe(_joined(games, _("%(items)s or %(last)s")))
    return _page(request, "frontend/home.html", {"clocks": clocks, "game_titles": either, "spectator_delay": SPECTATOR_DELAY})


def _joined(items: Sequence[str], pattern: str) -> str:
    """"a, b and c": the translated `pattern` ("%(items)s and %(last)s") joins the last item on."""
    if len(items) < 2:
        return "".join(items)
    return pattern % {"items": ", ".join(items[:-1]), "last": items[-1]}


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    wait = throttle_wait(request, "signup") if request.method == "POST" else None
    if wait is not None:
        form.is_valid()
        form.add_error(None, ngettext("Too many sign-ups from here: try again in %(wait)s second.",
                                      "Too many sign-ups from here: try again in %(wait)s seconds.", wait) % {"wait": wait})
    elif request.method == "POST" and form.is_valid():
        try:
            user = account_services.user_register(**form.cleaned_data, language=languages.kept_at_sign_up(request))
        except ApplicationError as exc:
            form.add_error(exc.extra.get("field", "password"), exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome, %(name)s! Open a table below or join one.") % {"name": user.shown_name})
            return redirect(_next_url(request))
    return _page(request, "frontend/signup.html", {"form": form, "next": _next_url(request, "")},
                 status=429 if wait is not None else 200)


@ensure_csrf_cookie
def login_page(request: HttpRequest) -> HttpResponse:
    form = LoginForm(request.POST or None)
    wait = throttle_wait(request, "login", account_scope="login_account") if request.method == "POST" else None
    if wait is not None:
        form.is_valid()
        form.add_error(None, _too_many_attempts(wait))
    elif request.method == "POST" and form.is_valid():
        try:
            user = account_services.user_authenticate(request=request, **form.cleaned_data)
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user)
            messages.success(request, _("Logged in as %(name)s.") % {"name": user.shown_name})
            return redirect(_next_url(request))
    return _page(request, "frontend/login.html", {"form": form, "next": _next_url(request, "")},
                 status=429 if wait is not None else 200)


@require_POST
def logout_page(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        account_services.user_tokens_revoke(user=request.user)
    logout(request)
    messages.info(request, _("You are logged out."))
    return redirect("/")


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """The language switcher: remembered in a cookie, and on the account of a signed-in person."""
    chosen = request.POST.get("language", "")
    if chosen not in dict(settings.LANGUAGES):
        return error_response("unknown_language", _("The site has no such language."))
    if isinstance(request.user, User):
        account_services.user_profile_update(user=request.user, language=chosen)
    response = redirect(_next_url(request))
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, chosen, max_age=365 * 24 * 3600, samesite="Lax",
                        secure=request.is_secure())
    return response


def _too_many_attempts(wait: int) -> str:
    return ngettext("Too many attempts: try again in %(wait)s second.",
                    "Too many attempts: try again in %(wait)s seconds.", wait) % {"wait": wait}


# --- the account page ---------------------------------------------------------------------------

# The account page's forms, each posted with its `action`; field errors go back onto the form.
_ACCOUNT_FORMS = {
    "profile": ProfileForm, "avatar": AvatarForm, "invitations": InvitationsFromForm, "mute": MuteForm,
    "unmute": UnmuteForm, "password": PasswordChangeForm, "delete": AccountDeleteForm,
}
# Those that check the password, and so count with the API's password checks.
_PASSWORD_FORMS = ("profile", "password", "delete")


@ensure_csrf_cookie
@login_required(login_url="/login")
def account(request: HttpRequest) -> HttpResponse:
    """The logged-in user's account: display name and e-mail, avatar, whose invitations reach them
    and whom they muted, password, deletion."""
    user = request.user
    assert isinstance(user, User)  # login_required
    forms = {
        "profile": ProfileForm(initial={"display_name": user.display_name, "email": user.email}),
        "avatar": AvatarForm(initial={"avatar": user.avatar}),
        "invitations": InvitationsFromForm(initial={"invitations_from": user.invitations_from}),
        "mute": MuteForm(),
        "unmute": UnmuteForm(),
        "password": PasswordChangeForm(),
        "delete": AccountDeleteForm(),
    }
    action = request.POST.get("action") if request.method == "POST" else None
    if action in _ACCOUNT_FORMS:
        form = forms[action] = _ACCOUNT_FORMS[action](request.POST)
        wait = throttle_wait(request, "password_check") if action in _PASSWORD_FORMS else None
        if wait is not None:
            form.is_valid()
            form.add_error(None, _too_many_attempts(wait))
        elif form.is_valid():
            try:
                done = _account_action(request, action, form.cleaned_data)
            except ApplicationError as exc:
                field = exc.extra.get("field")
                form.add_error(_account_field(action, field, exc.code), exc.message)
            else:
                messages.success(request, done)
                return redirect("/" if action == "delete" else "account")
    return _page(request, "frontend/account.html", {
        "forms": forms,
        "avatars": [{"variant": n, "url": reverse("avatar-variant", args=[user.pk, n])} for n in range(AVATAR_VARIANTS)],
        "tokens": account_selectors.token_list(user=user).count(),
        "muted": account_selectors.muted_sender_list(user=user),
        "notification_choices": [
            {"kind": kind, "label": Kind(kind).label, **choice}
            for kind, choice in notification_selectors.preferences(user=user).items()
        ],
    }, status=400 if action in _ACCOUNT_FORMS else 200)


@ensure_csrf_cookie
@login_required(login_url="/login")
@require_GET
def notifications(request: HttpRequest) -> HttpResponse:
    """The logged-in person's notifications (read through the API by the page's script)."""
    return _page(request, "frontend/notifications.html")


def _account_action(request: HttpRequest, action: str, data: dict[str, Any]) -> str:
    """Runs one of the account page's forms through its service; the message to show after."""
    user = request.user
    assert isinstance(user, User)  # the account page is login_required
    if action == "profile":
        account_services.user_profile_update(
            user=user, display_name=data["display_name"], email=data["email"], password=data["password"] or None
        )
        return _("Your account is saved.")
    if action == "avatar":
        account_services.user_profile_update(user=user, avatar=data["avatar"])
        return _("Your avatar is saved.")
    if action == "invitations":
        account_services.user_profile_update(user=user, invitations_from=data["invitations_from"])
        return _("Your choice of invitations is saved.")
    if action == "mute":
        account_services.sender_mute(user=user, username=data["mute_username"])
        return _("%(username)s is muted: their invitations will not reach you.") % {"username": data["mute_username"]}
    if action == "unmute":
        account_services.sender_unmute(user=user, username=data["unmute_username"])
        return _("%(username)s is no longer muted.") % {"username": data["unmute_username"]}
    if action == "password":
        account_services.user_password_change(user=user, **data)
        update_session_auth_hash(request, user)
        return _("Your password is changed. Your other devices are logged out and your API tokens revoked.")
    account_services.user_delete(user=user, password=data["delete_password"])
    logout(request)
    return _("Your account is deleted. Its matches stay, credited to a deleted player.")


def _account_field(action: str, field: str | None, code: str) -> str | None:
    """The form field a service's refusal belongs to (None: the whole form)."""
    if code == "wrong_password":
        return {"profile": "password", "password": "old_password", "delete": "delete_password"}.get(action)
    if action == "password" and code == "weak_password":
        return "new_password"
    if action == "profile" and field in ("display_name", "email", "password"):
        return field
    if action == "mute":
        return "mute_username"
    return None


# --- password resets: Django's own views and tokens, in this site's pages -------------------------


class _SitePage:
    """What every page of this site gets (base.html's header)."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        return {**context, "page_user": _page_user(self.request), "games": _games()}


class _QueuedResetForm(PasswordResetForm):
    """Django's reset form, sending through the same service as the API (`password_reset_request`)."""

    def save(self, *, request, **kwargs):
        account_services.password_reset_request(email=self.cleaned_data["email"])


class PasswordResetPage(_SitePage, auth_views.PasswordResetView):
    """Asks for an e-mail; throttled with the API's `POST /api/auth/password-reset`."""

    form_class = _QueuedResetForm
    template_name = "frontend/password_reset_form.html"
    success_url = "/account/reset/sent"

    def post(self, request, *args, **kwargs):
        wait = throttle_wait(request, "password_reset", account_scope="password_reset_account", account_field="email")
        if wait is not None:
            form = self.get_form()
            form.is_valid()
            form.add_error(None, ngettext("Too many requests: try again in %(wait)s second.",
                                          "Too many requests: try again in %(wait)s seconds.", wait) % {"wait": wait})
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)


class PasswordResetSentPage(_SitePage, auth_views.PasswordResetDoneView):
    template_name = "frontend/password_reset_sent.html"


class PasswordResetConfirmPage(_SitePage, auth_views.PasswordResetConfirmView):
    """Sets the new password from the e-mail's link. The user's API tokens are revoked too: a
    reset is what someone does who thinks another may hold their password."""

    template_name = "frontend/password_reset_confirm.html"
    success_url = "/account/reset/done"

    def form_valid(self, form):
        answer = super().form_valid(form)
        account_services.user_tokens_revoke(user=form.user)
        return answer


class PasswordResetDonePage(_SitePage, auth_views.PasswordResetCompleteView):
    template_name = "frontend/password_reset_done.html"


# --- avatars ----------------------------------------------------------------------------------

AVATAR_MAX_AGE = 3600  # seconds: a changed pick shows within the hour (the account page adds ?v=)


@require_GET
def avatar(request: HttpRequest, user_id: int) -> HttpResponse:
    """The avatar a user picked, as SVG."""
    user = User.objects.filter(pk=user_id).only("username", "avatar").first()
    if user is None:
        raise Http404("No such player.")
    return _svg(avatar_svg(user.username, user.avatar))


@require_GET
def avatar_variant(request: HttpRequest, user_id: int, variant: int) -> HttpResponse:
    """One of the avatars a user may pick, as SVG."""
    user = User.objects.filter(pk=user_id).only("username").first()
    if user is None or variant >= AVATAR_VARIANTS:
        raise Http404("No such avatar.")
    return _svg(avatar_svg(user.username, variant))


def _svg(text: str) -> HttpResponse:
    response = HttpResponse(text, content_type="image/svg+xml")
    patch_cache_control(response, public=True, max_age=AVATAR_MAX_AGE)
    # Opened on its own, an SVG is a document: it may run nothing and load nothing.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    return response


@ensure_csrf_cookie
@require_GET
@replica_reads
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's ratings per game (both pools), rating history, and recent matches."""
    player = User.objects.filter(username=username).first()
    if player is None:
        raise Http404("No such player.")
    recent = selectors.match_summaries(
        list(selectors.match_list(player=player.username, viewer=request.user)[:20]), request.user
    )
    ratings = [_rating_card(row) for row in rating_selectors.user_ratings(player.pk)]
    return _page(request, "frontend/profile.html", {
        "player": player,
        "player_data": {
            "username": player.username, "name": player.shown_name, "id": player.pk,
            "rated": [{"game": r["game"], "pool": r["pool"], "games": r["games"]} for r in ratings],
            "provisional_games": rating_selectors.PROVISIONAL_GAMES,
        },
        "ratings": ratings,
        "provisional_games": rating_selectors.PROVISIONAL_GAMES,
        "recent": [_match_row(summary, player.pk) for summary in recent],
    })


# The two pools as the pages name them: the bots' pool's board lists people beside the bots.
POOL_TITLES = {Pool.PEOPLE: gettext_lazy("People"), Pool.BOTS: gettext_lazy("Against bots")}
BOARD_TITLES: dict[str, Promise] = {Pool.PEOPLE: gettext_lazy("people's board"), Pool.BOTS: gettext_lazy("people-and-bots board")}
# A match's status as the profile's list of matches shows it.
STATUS_TEXT = {"open": pgettext_lazy("match status", "open"), "running": pgettext_lazy("match status", "running"),
               "finished": pgettext_lazy("match status", "finished")}


BOARD_PAGE = 25  # rows per page of the board (js/leaderboard.js PAGE)


def _rating_card(row: dict[str, Any]) -> dict[str, Any]:
    """A profile's rating card: the rating, and a link to the board's page that shows its place."""
    board = reverse("bots" if row["pool"] == Pool.BOTS else "leaderboard", kwargs={"game": row["game"]})
    offset = (row["position"] - 1) // BOARD_PAGE * BOARD_PAGE
    board += "?" + urlencode({"offset": offset, "highlight": row["competitor"]})
    return {
        **row, "title": GAME_TITLES.get(row["game"], row["game"]), "pool_title": POOL_TITLES[row["pool"]],
        "board_url": board,
    }


@require_GET
def profile_by_id(request: HttpRequest, user_id: int) -> HttpResponse:
    """Pages that only know a seat's user id (the API's seats) link here."""
    player = User.objects.filter(pk=user_id).first()
    if player is None:
        raise Http404("No such player.")
    return redirect("profile", username=player.username)


def _match_row(summary: Mapping[str, Any], user_id: int) -> dict[str, Any]:
    seat = next((s["seat"] for s in summary["seats"] if s["user"] == user_id), None)
    outcome = summary["outcome"]
    result = ""
    if outcome and seat is not None:
        score = outcome["scores"][seat]
        if outcome.get("cooperative"):
            left = ngettext("won, %(count)s card left", "won, %(count)s cards left", score) if outcome.get("won") \
                else ngettext("lost, %(count)s card left", "lost, %(count)s cards left", score)
            result = left % {"count": score}
        else:
            result = _("rank %(rank)s of %(players)s, score %(score)s") % {
                "rank": summary["ranks"][seat], "players": summary["players"], "score": score}
    title = GAME_TITLES.get(summary["game"], summary["game"])
    when = summary["finished_at"] or summary["started_at"] or summary["created_at"]
    return {**summary, "title": title, "seat": seat, "result": result, "not_rated": _not_rated(summary),
            "status_text": STATUS_TEXT.get(summary["status"], summary["status"]), "when": when}


def _not_rated(summary: Mapping[str, Any]) -> str:
    """What the pages' modules say of a finished match that did not count (js/matches.js ratingText)."""
    rating = summary["rating"]
    if not rating or rating["rated"] or rating["reason"] != "seat_never_moved":
        return ""
    names = [summary["seats"][seat]["name"] or _("Seat %(number)s") % {"number": seat + 1} for seat in rating["seats"]]
    return _("Not rated: %(names)s never made a move") % {"names": _joined(names, _("%(items)s and %(last)s"))}


@require_GET
def player_search(request: HttpRequest) -> JsonResponse:
    """Usernames starting with `q` (at most 10), for the leaderboards' search box."""
    query = request.GET.get("q", "").strip()
    if not query:
        return JsonResponse({"results": []})
    users = User.objects.filter(username__istartswith=query).order_by("username")[:10]
    return JsonResponse({"results": [{"username": u.username, "name": u.shown_name} for u in users]})


# --- tables -----------------------------------------------------------------------------------


def _match_or_404(match_id: int, user):
    """The table, or 404 for a number that names none or a private table the reader may not know of."""
    try:
        return selectors.match_get_known(match_id, user)
    except ApplicationError:
        raise Http404("No such table.") from None


@ensure_csrf_cookie
@require_GET
def table(request: HttpRequest, match_id: int) -> HttpResponse:
    """A live table of any of the four games; its module draws the game from the view JSON."""
    match = _match_or_404(match_id, request.user)
    watch = selectors.can_watch(match, request.user)
    if not watch.allowed:
        # The same decision as the API's and the socket's: say why and when, show nothing of the table.
        return _page(request, "frontend/table_closed.html", {
            "match": match, "title": GAME_TITLES.get(match.game, match.game), "opens_when": watch.opens_when,
            "tournament_id": Match.objects.filter(pk=match.pk).values_list(
                "tournament_table__round__tournament_id", flat=True
            ).first(),
        })
    seat = selectors.seat_of(match, request.user)
    auto_pass = False
    if seat is not None:
        row = Seat.objects.filter(match=match, seat=seat).values_list("auto_pass", flat=True)
        auto_pass = bool(row.first())
    return _page(request, "frontend/table.html", {
        "match": match,
        "title": GAME_TITLES.get(match.game, match.game),
        "table_data": {
            "match": _json_ready(selectors.match_summary(match, request.user)),
            "changed_result": tournament_selectors.match_changed_result(match.pk),
            "user": _page_user(request),
            "seat": seat,
            # A delayed table's moves of delay for this reader while they hold no seat (None: live).
            "delay_moves": watch.delay_moves,
            "auto_pass": auto_pass,
            # The sound cues' volume (0: muted); None: an anonymous reader, whose browser keeps it.
            "sound_volume": request.user.sound_volume if isinstance(request.user, User) else None,
            "bots": sorted(BOTS.get(match.game, {})),
            "strong_bot": STRONG_BOT.get(match.game),
            # A tournament table's time, and its calls for a judge (None: a table of no tournament).
            "judging": tournament_selectors.table_judging(match.pk, request.user),
            "chat": {
                "moderator": chat_selectors.chat_moderator(match, request.user),
                "closed": chat_selectors.spectators_closed_to_players(match),
            },
        },
    })


@ensure_csrf_cookie
@require_GET
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: its page reads the invitation and sits the holder down."""
    return _page(request, "frontend/invite.html", {
        "invite_data": {"token": token, "user": _page_user(request), "titles": GAME_TITLES},
    })


@ensure_csrf_cookie
@require_GET
@replica_reads
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay viewer of a finished match."""
    match = _match_or_404(match_id, request.user)
    return _page(request, "frontend/replay.html", {
        "match": match,
        "title": GAME_TITLES.get(match.game, match.game),
        "replay_data": {
            "match": _json_ready(selectors.match_summary(match)),
            "changed_result": tournament_selectors.match_changed_result(match.pk),
            "user": _page_user(request),  # "Practice from here" is for a signed-in viewer
        },
    })


def _json_ready(summary: Mapping[str, Any]) -> dict[str, Any]:
    """Dates as ISO strings, for json_script."""
    return {key: _iso(value) for key, value in summary.items()}


def _iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


# --- the games' rules -------------------------------------------------------------------------


@require_GET
def rules(request: HttpRequest, game: str | None = None) -> HttpResponse:
    """The four games' rules for players, in the reader's language (`?lang=` shows the other one)."""
    if game is None:
        return _page(request, "frontend/rules.html")
    asked = request.GET.get("lang", "")
    shown = asked if asked in rulebook.RULES_LANGUAGES else rulebook.rules_language(get_language())
    html = rulebook.rules_html(game, shown) if game in GAME_TITLES else None
    if html is None:
        raise Http404("No such game.")
    return _page(request, "frontend/rules.html", {
        "game": game, "title": GAME_TITLES[game], "rules_html": html, "shown": shown,
        "other": next(language for language in rulebook.RULES_LANGUAGES if language != shown),
    })


# --- boards -----------------------------------------------------------------------------------


@ensure_csrf_cookie
@require_GET
@replica_reads
def leaderboard(request: HttpRequest, game: str | None = None, pool: str = "people") -> HttpResponse:
    """A game's leaderboard (the people's board, or the bots' pool's board of people and bots):
    the module pages, filters, searches and finds you."""
    slugs = [g["slug"] for g in selectors.game_list()]
    if game is None:
        return redirect(reverse("bots" if pool == "bots" else "leaderboard", kwargs={"game": slugs[0]}))
    if game not in slugs:
        raise Http404("No such game.")
    provisional = rating_selectors.PROVISIONAL_GAMES
    other_pool = Pool.PEOPLE if pool == Pool.BOTS else Pool.BOTS
    other_games = (rating_selectors.user_board_games(request.user.pk, game, other_pool)
                   if request.user.is_authenticated else None)
    return _page(request, "frontend/leaderboard.html", {
        "game": game,
        "title": GAME_TITLES.get(game, game),
        "pool": pool,
        "board_title": BOARD_TITLES[pool],
        "provisional_games": provisional,
        "board_data": {
            "game": game, "title": GAME_TITLES.get(game, game), "pool": pool, "user": _page_user(request),
            "provisional_games": provisional,
            # The viewer's rated games on this game's other board: "your games are over there".
            "other_board_games": other_games,
        },
    })


# --- tournaments ------------------------------------------------------------------------------

# The formats the organiser's form offers, with the options each one takes (tournaments/formats).
# Their names are translated here, where they are shown: the format modules stay free of Django.
FORMAT_INFO: dict[str, dict[str, Any]] = {
    "swiss": {"title": pgettext_lazy("format", "Swiss"), "fields": ["rounds"]},
    "round-robin": {"title": pgettext_lazy("format", "Round robin"), "fields": ["double"]},
    "single-elimination": {"title": pgettext_lazy("format", "Single elimination"), "fields": ["third_place"], "bracket": True},
    "double-elimination": {
        "title": pgettext_lazy("format", "Double elimination"), "fields": ["grand_final_reset"], "bracket": True,
    },
    "swiss-tables": {"title": pgettext_lazy("format", "Swiss at tables"), "fields": ["rounds", "table_size"]},
    "table-elimination": {"title": pgettext_lazy("format", "Table elimination"), "fields": ["table_size", "advance"]},
    "league": {"title": pgettext_lazy("format", "League (dated matchdays)"), "fields": ["format", "start", "every_days"]},
}

# The organiser's choice of clock: seconds a move, and its words.
TOURNAMENT_CLOCKS = [
    (30, gettext_lazy("30 seconds a move")), (120, gettext_lazy("2 minutes a move")),
    (600, gettext_lazy("10 minutes a move")), (86400, gettext_lazy("1 day a move")),
]


def _formats() -> list[dict[str, Any]]:
    return [{"slug": slug, **info} for slug, info in FORMAT_INFO.items() if slug in FORMATS]


@ensure_csrf_cookie
@require_GET
def tournaments(request: HttpRequest) -> HttpResponse:
    """Tournaments and leagues: the list, and the organiser's form."""
    return _page(request, "frontend/tournaments.html", {
        "formats": _formats(),
        "clocks": TOURNAMENT_CLOCKS,
        "spectator_delay": SPECTATOR_DELAY,
        "tournaments_data": {
            "formats": _formats(), "user": _page_user(request),
            # What each game allows, so the form offers no format the server would refuse.
            "game_formats": tournament_selectors.game_formats(),
        },
    })


def _tournament_or_404(tournament_id: int):
    try:
        return tournament_selectors.tournament_get(tournament_id)
    except ApplicationError:
        raise Http404("No such tournament.") from None


@ensure_csrf_cookie
@require_GET
@replica_reads
def tournament(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """One tournament: registration, the bracket or the pairings, standings, the calendar; live."""
    found = _tournament_or_404(tournament_id)
    return _page(request, "frontend/tournament.html", {
        "tournament": found,
        "title": GAME_TITLES.get(found.game, found.game),
        "pairing_lines": tournament_selectors.pairing_summaries(found),
        "judges": tournament_selectors.judges_for(found, request.user),
        "tournament_data": {
            "id": found.pk, "user": _page_user(request), "formats": _formats(),
            # A decision's stored reason is English (with its details); others read its rule's sentence.
            "rule_sentences": {} if (get_language() or "en").startswith("en")
            else {rule: str(sentence) for rule, sentence in tournament_selectors.RULE_SENTENCES.items()},
        },
    })


@ensure_csrf_cookie
@require_GET
def series_list(request: HttpRequest) -> HttpResponse:
    """Series of tournaments: the list, and a form to create one."""
    return _page(request, "frontend/series_list.html")


@ensure_csrf_cookie
@require_GET
@replica_reads
def series(request: HttpRequest, series_id: int) -> HttpResponse:
    """One series: its points table, the tournaments it counts and its standings, read from the API."""
    try:
        found = tournament_selectors.series_get(series_id)
    except ApplicationError:
        raise Http404("No such series.") from None
    user = request.user
    return _page(request, "frontend/series.html", {
        "series": found,
        "series_data": {
            "id": found.pk,
            # Only shows the form: the API checks every change itself (403 not_series_organiser).
            "can_edit": user.is_authenticated and (user.pk == found.organiser_id or user.is_staff),
        },
    })


# --- the venue kit: the big screen and the printouts (issue #46) -------------------------------


@ensure_csrf_cookie
@require_GET
@replica_reads
def tournament_screen(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The venue's big screen: the round's clock, its tables, the last results and a QR code to
    the tournament page; its module follows the tournament as the tournament page does. No login:
    it reads the public API as its reader, so it shows no more than the tournament page."""
    found = _tournament_or_404(tournament_id)
    page_url = venue.absolute_url(request, reverse("tournament", args=[found.pk]))
    return _page(request, "frontend/tournament_screen.html", {
        "tournament": found,
        "title": GAME_TITLES.get(found.game, found.game),
        "page_url": page_url,
        "qr": venue.qr_svg(page_url, _("QR code: %(url)s") % {"url": page_url}),
        "languages": settings.LANGUAGES,
        "screen_data": {
            "id": found.pk,
            "sound_volume": request.user.sound_volume if isinstance(request.user, User) else None,
        },
    })


@ensure_csrf_cookie
@require_GET
@login_required(login_url="/login")
def tournament_judging(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The judges' queue: calls from the tables, taken and resolved live, and the organiser's list
    of judges. Only those who judge the tournament read it (its API answers anyone else 403)."""
    found = _tournament_or_404(tournament_id)
    if not tournament_selectors.judges_for(found, request.user):
        return _page(request, "frontend/judging_closed.html", {"tournament": found}, status=403)
    return _page(request, "frontend/judging.html", {
        "tournament": found,
        "title": GAME_TITLES.get(found.game, found.game),
        "judging_data": {
            "id": found.pk,
            "user": _page_user(request),
            # The organiser and staff name judges and resolve any call; only the organiser corrects a result.
            "head": request.user.is_staff or request.user.pk == found.organiser_id,
            "corrects": request.user.pk == found.organiser_id,
        },
    })


# The printouts of a tournament's current round, by the name their address ends with.
PRINTOUTS = {
    "pairings": gettext_lazy("Pairings"),
    "standings": gettext_lazy("Standings"),
    "cards": gettext_lazy("Place cards"),
}


@require_GET
@replica_reads
def tournament_print(request: HttpRequest, tournament_id: int, kind: str) -> HttpResponse:
    """A printout of the current round (pairings by table and by name, the standings, place
    cards): plain HTML with a print stylesheet for A4 and Letter, what the tournament page shows."""
    found = _tournament_or_404(tournament_id)
    if kind not in PRINTOUTS:
        raise Http404("No such printout.")
    return _page(request, "frontend/tournament_print.html", {
        "tournament": found,
        "title": GAME_TITLES.get(found.game, found.game),
        "kind": kind,
        "kind_title": PRINTOUTS[kind],
        "printouts": list(PRINTOUTS.items()),
        **venue.printout(request, found),
    })
