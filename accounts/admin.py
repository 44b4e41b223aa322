from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = UserAdmin.fieldsets + (("Player", {"fields": ("display_name",)}),)
    list_display = ("username", "display_name", "is_staff", "date_joined")
