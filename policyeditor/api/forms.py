"""The form of the API token settings page."""

from __future__ import annotations

from django import forms


class TokenForm(forms.Form):
    """Name a new token after where it will be used (e.g. "CI" or "laptop")."""

    name = forms.CharField(
        max_length=100,
        strip=True,
        help_text="Where this token will be used, e.g. “GitHub Actions”.",
        widget=forms.TextInput(attrs={"autocomplete": "off", "placeholder": "CI pipeline"}),
    )

    expires_in = forms.TypedChoiceField(
        choices=[("30", "30 days"), ("90", "90 days"), ("365", "1 year"), ("0", "Never")],
        initial="90",
        coerce=int,
        required=False,
        empty_value=90,  # type: ignore[arg-type]  # the stubs type empty_value as str; coerce=int makes it an int
        help_text="A token that never expires is revoked only by you or by a password change.",
    )
