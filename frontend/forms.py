"""The account forms; the checks that matter (password strength, taken names) are the services'."""
from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import InvitationsFrom

_USERNAME_ATTRS = {"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}


class SignupForm(forms.Form):
    username = forms.RegexField(
        regex=r"^[\w.+-]+$", max_length=150, label=_("Username"),
        help_text=_("Letters, digits and . + - _ only."),
        error_messages={"invalid": _("Use only letters, digits and . + - _")},
        widget=forms.TextInput(attrs=_USERNAME_ATTRS),
    )
    display_name = forms.CharField(
        max_length=40, required=False, label=_("Display name"),
        help_text=_("Shown at tables and on leaderboards; your username if left empty."),
    )
    email = forms.EmailField(
        required=False, label=_("E-mail"), help_text=_("Only for a link to set a new password if you forget yours."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        max_length=128, strip=False, label=_("Password"),
        help_text=_("At least 8 characters, not too common, not all digits."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


class LoginForm(forms.Form):
    username = forms.CharField(
        max_length=150, label=_("Username"),
        widget=forms.TextInput(attrs=_USERNAME_ATTRS),
    )
    password = forms.CharField(
        max_length=128, strip=False, label=_("Password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class ProfileForm(forms.Form):
    display_name = forms.CharField(
        max_length=40, required=False, label=_("Display name"),
        help_text=_("Shown at tables and on leaderboards; your username if left empty."),
    )
    email = forms.EmailField(
        required=False, label=_("E-mail"), help_text=_("Where a link to set a new password goes if you forget yours."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        max_length=128, strip=False, required=False, label=_("Current password"),
        help_text=_("Needed to change your e-mail."),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class AvatarForm(forms.Form):
    avatar = forms.IntegerField(min_value=0, label=_("Avatar"))


class InvitationsFromForm(forms.Form):
    invitations_from = forms.ChoiceField(
        choices=InvitationsFrom.choices, label=_("Invitations by name from"),
        help_text=_("Played with: sat at a table with you once its match started. Nobody is told that their "
                    "invitation did not reach you."),
    )


class MuteForm(forms.Form):
    mute_username = forms.CharField(
        max_length=150, label=_("Mute a player by username"),
        help_text=_("Their invitations never reach you; they are not told."),
        widget=forms.TextInput(attrs=_USERNAME_ATTRS),
    )


class UnmuteForm(forms.Form):
    unmute_username = forms.CharField(max_length=150)


class PasswordChangeForm(forms.Form):
    old_password = forms.CharField(
        max_length=128, strip=False, label=_("Current password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    new_password = forms.CharField(
        max_length=128, strip=False, label=_("New password"),
        help_text=_("At least 8 characters, not too common, not all digits. Logs out your other devices "
                    "and revokes your API tokens."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


class AccountDeleteForm(forms.Form):
    delete_password = forms.CharField(
        max_length=128, strip=False, label=_("Your password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
