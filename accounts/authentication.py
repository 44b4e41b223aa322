"""API tokens, checked with one prepared statement instead of a built query per request.

DRF's `TokenAuthentication` builds `Token.objects.select_related("user").get(key=...)` on every
request: about a third of the move endpoint's CPU (bench/moves.py), for a one-row lookup.
This reads the same row with a fixed query and builds the user as the ORM would. A revoked or
expired token fails on the very next request.
"""
from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts.models import ApiToken, User
from accounts.tokens import key_hash
from server import languages

_USER_COLUMNS = [field.column for field in User._meta.concrete_fields]
_USER_ATTNAMES = [field.attname for field in User._meta.concrete_fields]


def user_for_token(key: str) -> User | None:
    """The active user owning the unexpired token `key`, or None."""
    return user_for_token_hash(key_hash(key))


def user_for_token_hash(digest: str) -> User | None:
    """The active user owning the unexpired token whose key hashes to `digest`, or None."""
    quote = connection.ops.quote_name
    columns = ", ".join(f"u.{quote(column)}" for column in _USER_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {User._meta.db_table} u JOIN {ApiToken._meta.db_table} t ON t.user_id = u.id"
            " WHERE t.key_hash = %s AND t.expires > %s",
            [digest, connection.ops.adapt_datetimefield_value(timezone.now())],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    values = [_converted(index, value) for index, value in enumerate(row)]
    user = User.from_db(connection.alias, _USER_ATTNAMES, values)
    return user if user.is_active else None


_converters: list[list] | None = None


def _converted(index: int, value):
    """A column's value as the ORM gives it (SQLite returns booleans as 0/1, timestamps as text)."""
    global _converters
    if _converters is None:
        _converters = []
        for field in User._meta.concrete_fields:
            column = field.get_col(User._meta.db_table)
            # Field.get_db_converters exists (django.db.models.fields); the stubs leave it out.
            found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)  # type: ignore[attr-defined]
            _converters.append([(convert, column) for convert in found])
    for convert, column in _converters[index]:
        value = convert(value, column, connection)
    return value


class FastTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's, answered by `user_for_token`."""

    def authenticate(self, request):
        found = super().authenticate(request)
        if found is not None:
            # The language middleware ran before DRF knew whose token this is: the account's
            # language counts now, as a session's does (server.languages).
            translation.activate(languages.chosen(
                user_language=found[0].language, cookie=request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
                accept_language=request.headers.get("Accept-Language", ""), api=True,
            ))
        return found

    def authenticate_credentials(self, key):
        user = user_for_token(key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        return user, key
