"""Fill the editor's form to hold a given document, control by control, as a user would.

The driver walks the form's own field list (formspec) beside the target document and, for each
control, types, picks, ticks, adds or removes rows until the form holds exactly the target. It
never touches the YAML mode: what it builds is what the form alone can build.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, expect

from policyeditor.editor.formspec import Field, sections_for
from tests.browser.editor_helpers import fill_cel, tick


def _get(obj: Any, dotted: str) -> Any:
    """The value at a dotted key of `obj`, or None."""
    for part in dotted.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def _control(scope: Locator, name: str) -> Locator:
    return scope.locator(f'[data-field="{name}"]').first


def _strings_text(values: list[str] | None) -> str:
    return ", ".join('""' if value == "" else value for value in values or [])


def _click_until(target: Locator, settled: Callable[[], None], tries: int = 3) -> None:
    """Click `target` until `settled` passes.

    Live validation places errors beside the fields as it answers, which moves the layout: when
    that happens between the mouse going down and coming up, the browser sends the click to a
    common ancestor and the button never sees it (a user would click again, and so do we).
    """
    for attempt in range(tries):
        target.click()
        try:
            settled()
            return
        except AssertionError:
            if attempt == tries - 1:
                raise


def _click_until_count(target: Locator, items: Locator, count: int, timeout: float = 3000) -> None:
    """Click `target` until `items` counts `count`."""
    _click_until(target, lambda: expect(items).to_have_count(count, timeout=timeout))


def _click_until_open(details: Locator) -> None:
    """Click the summary of `details` until it is open."""
    _click_until(
        details.locator(":scope > summary"),
        lambda: expect(details).to_have_attribute("open", "", timeout=3000),
    )


def _set_map(box: Locator, spec: Field, value: dict | None) -> None:
    pairs = box.locator(":scope > .map-list > .kv")
    while pairs.count():
        count = pairs.count()
        _click_until_count(pairs.first.locator('[data-action="remove-pair"]'), pairs, count - 1)
    add = box.get_by_role("button", name=f"+ Add {spec.label.lower()} entry")
    for index, (key, text) in enumerate((value or {}).items()):
        _click_until_count(add, pairs, index + 1)
        pair = pairs.nth(index)
        pair.get_by_label(f"{spec.label} key").fill(key)
        pair.get_by_label(f"{spec.label} value").fill(text)


def _set_rows(box: Locator, spec: Field, value: list[dict] | None) -> None:
    rows = box.locator(":scope > .rows-list > .row")
    while rows.count():
        count = rows.count()
        remove = rows.first.locator(':scope > .row-tools [data-action="remove-row"]')
        _click_until_count(remove, rows, count - 1)
    add = box.locator(":scope > button.add-row")
    for index, item in enumerate(value or []):
        # Adding a row asks the server for it: give the answer the full timeout before clicking again.
        _click_until_count(add, rows, index + 1, timeout=10_000)
        row = rows.nth(index)
        row_name = row.get_attribute("data-row")
        fields = row.locator(":scope > .row-fields")
        for child in spec.fields:
            set_field(fields, child, row_name, item)


def set_field(scope: Locator, spec: Field, prefix: str, obj: dict) -> None:
    """Make the control of `spec` under `prefix` hold `obj`'s value (clearing it when absent)."""
    name = f"{prefix}.{spec.key}"
    value = _get(obj, spec.key)
    box = _control(scope, name)
    if spec.advanced:
        # Advanced fields sit behind their section's (or row's) "More options" toggle: a user
        # leaves it folded when there is nothing to set or clear there.
        empty = box.evaluate(
            """el => ![...el.querySelectorAll('input, select, textarea')].some((c) =>
                   c.type === 'hidden' ? false : c.type === 'checkbox' ? c.checked : c.value)
                 && !el.querySelector('.row, .kv')"""
        )
        if value is None and empty:
            return
        more = box.locator("xpath=ancestor::details[contains(@class,'more-options')][1]")
        if more.get_attribute("open") is None:
            _click_until_open(more)
    widget = spec.widget
    if widget == "text":
        box.locator("input").fill("" if value is None else str(value))
    elif widget == "select":
        box.locator("select").select_option("" if value is None else str(value))
    elif widget == "cel":
        textarea = box.locator("textarea")
        if textarea.input_value() != (value or ""):
            fill_cel(textarea, value or "")
    elif widget == "strings":
        box.locator("input").fill(_strings_text(value))
    elif widget == "checks":
        for choice in spec.choices:
            tick(box.locator(f'input[type="checkbox"][value="{choice}"]'), choice in (value or []))
    elif widget == "map":
        _set_map(box, spec, value)
    elif widget == "rows":
        _set_rows(box, spec, value)
    elif widget == "group":
        for child in spec.fields:
            set_field(box, child, name, value or {})
    else:  # pragma: no cover - a new widget needs a branch here
        raise AssertionError(f"no driver for widget {widget!r}")


def author_document(document: Locator, target: dict) -> None:
    """Fill the form of one `.document` section so that it holds `target`."""
    doc_id = document.get_attribute("data-doc")
    sections = sections_for(target["kind"])
    assert sections is not None, f"{target['kind']} has no form"
    for section in sections:
        details = document.locator(f'details[data-section="{section.slug}"]')
        if details.get_attribute("open") is None:
            _click_until_open(details)
        body = details.locator(":scope > .section-body")
        for spec in section.fields:
            set_field(body, spec, doc_id, target)
