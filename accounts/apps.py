from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the tasks, which the services send by name (`password_reset_request`): the
        # task module imports the services, so the services cannot import it back.
        from accounts import tasks  # noqa: F401, PLC0415
