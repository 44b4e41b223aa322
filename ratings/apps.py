from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Listens for matches unsealed (games.signals): games never imports this app.
        from ratings import receivers  # noqa: F401, PLC0415
