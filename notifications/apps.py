from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the tasks, which the services send by name (the task module imports the
        # services), and listens for invitations addressed to someone (games.signals): games
        # never imports this app.
        from notifications import receivers, tasks  # noqa: F401, PLC0415
