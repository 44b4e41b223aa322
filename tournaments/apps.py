from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Listens for accounts deleted (accounts.signals): accounts never imports this app.
        from tournaments import receivers  # noqa: F401, PLC0415
