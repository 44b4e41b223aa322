"""Background work for accounts; each task takes plain values and calls a service."""
from __future__ import annotations

from accounts import services
from server.celery import idempotent_task


@idempotent_task
def password_reset_email_task(email: str, language: str | None = None) -> int:
    """Sends the password reset e-mails for `email`. Run twice, it sends a second link: harmless,
    as both are spent when either sets the password. `language`: the requester's."""
    return services.password_reset_send(email=email, language=language)
