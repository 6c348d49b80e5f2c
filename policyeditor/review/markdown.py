"""Markdown-safe rendering of comments: CommonMark without raw HTML, images or unsafe links."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline

MENTION = re.compile(r"@([A-Za-z0-9_.+-]*[A-Za-z0-9_+-])")
# A mention starts after whitespace or punctuation, never inside an e-mail address.
_BEFORE_MENTION = re.compile(r"[\s(\[{,;:!?\"']")


def mentioned_usernames(text: str) -> list[str]:
    """Usernames written as @name in `text`, in order, without repeats."""
    found: list[str] = []
    for match in MENTION.finditer(text or ""):
        start = match.start()
        if start > 0 and not _BEFORE_MENTION.match(text[start - 1]):
            continue
        if match.group(1) not in found:
            found.append(match.group(1))
    return found


def _mention_rule(known: set[str]):
    """An inline rule turning @name of a known member into a mention token."""

    def rule(state: StateInline, silent: bool) -> bool:
        pos = state.pos
        if state.src[pos] != "@":
            return False
        if pos > 0 and not _BEFORE_MENTION.match(state.src[pos - 1]):
            return False
        match = MENTION.match(state.src, pos)
        if not match or match.group(1) not in known:
            return False
        if not silent:
            token = state.push("mention", "", 0)
            token.content = match.group(1)
        state.pos = match.end()
        return True

    return rule


def _render_mention(self, tokens, idx, options, env) -> str:
    return f'<span class="mention">@{escape(tokens[idx].content)}</span>'


def _parser(known: set[str]) -> MarkdownIt:
    # html=False: tags in comments are shown as text. Images could track readers: off.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable(["image", "html_inline", "html_block"])
    md.inline.ruler.before("emphasis", "mention", _mention_rule(known))
    md.add_render_rule("mention", _render_mention)
    # The commonmark preset renders HTML: RendererHTML holds the rules.
    renderer = md.renderer
    default_link_open = (
        renderer.rules.get("link_open") if isinstance(renderer, RendererHTML) else None
    )

    def link_open(self, tokens, idx, options, env) -> str:
        # Links from comments must not pass referrers or get a handle on this window.
        tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
        if default_link_open:
            return default_link_open(tokens, idx, options, env)
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


def render(text: str, *, members: Iterable[str] = ()) -> SafeString:
    """HTML for a comment body; raw HTML is escaped, javascript: links are dropped by the parser."""
    md = _parser(set(members))
    return mark_safe(md.render(text or ""))  # noqa: S308 - the parser escaped all input
