"""The account forms; the checks that matter (password strength, taken names) are the services'."""
from __future__ import annotations

from django import forms

_USERNAME_ATTRS = {"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}


class SignupForm(forms.Form):
    username = forms.RegexField(
        regex=r"^[\w.+-]+$", max_length=150,
        help_text="Letters, digits and . + - _ only.",
        error_messages={"invalid": "Use only letters, digits and . + - _"},
        widget=forms.TextInput(attrs=_USERNAME_ATTRS),
    )
    display_name = forms.CharField(
        max_length=40, required=False, label="Display name",
        help_text="Shown at tables and on leaderboards; your username if left empty.",
    )
    email = forms.EmailField(
        required=False, label="E-mail", help_text="Only for a link to set a new password if you forget yours.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        max_length=128, strip=False,
        help_text="At least 8 characters, not too common, not all digits.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


class LoginForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        widget=forms.TextInput(attrs=_USERNAME_ATTRS),
    )
    password = forms.CharField(
        max_length=128, strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )


class ProfileForm(forms.Form):
    display_name = forms.CharField(
        max_length=40, required=False, label="Display name",
        help_text="Shown at tables and on leaderboards; your username if left empty.",
    )
    email = forms.EmailField(
        required=False, label="E-mail", help_text="Where a link to set a new password goes if you forget yours.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        max_length=128, strip=False, required=False, label="Current password",
        help_text="Needed to change your e-mail.",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class AvatarForm(forms.Form):
    avatar = forms.IntegerField(min_value=0)


class PasswordChangeForm(forms.Form):
    old_password = forms.CharField(
        max_length=128, strip=False, label="Current password",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    new_password = forms.CharField(
        max_length=128, strip=False, label="New password",
        help_text="At least 8 characters, not too common, not all digits. Logs out your other devices "
        "and revokes your API tokens.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


class AccountDeleteForm(forms.Form):
    delete_password = forms.CharField(
        max_length=128, strip=False, label="Your password",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
