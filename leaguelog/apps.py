from django.apps import AppConfig


class LeagueLogConfig(AppConfig):
    name = "leaguelog"
    verbose_name = "League log"
    default_auto_field = "django.db.models.BigAutoField"
