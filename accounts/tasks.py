"""Background work for accounts; each task takes plain values and calls a service."""
from __future__ import annotations

from accounts import services
from server.celery import idempotent_task


@idempotent_task
def password_reset_email_task(email: str, domain: str, use_https: bool) -> int:
    """Sends the password reset e-mails for `email`. Run twice, it sends a second link: harmless,
    as both are spent when either sets the password."""
    return services.password_reset_send(email=email, domain=domain, use_https=use_https)
