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
